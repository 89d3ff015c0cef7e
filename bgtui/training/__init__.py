"""Training the evaluator: TD self-play, training sets labelled by look-ahead or rollouts,
supervised fits (SGD or Adam), the filter net, the gammon heads and weight averaging.

Within bgtui only ``bgtui train`` (``bgtui.cli.train``) imports this package; the engine, the
analysis services, the UI and the user commands never do, and the benchmarks do not either.
The evaluation and research scripts that study training and its nets use its public names
only (``tests/test_layers.py`` checks all three). Self-play that samples positions is the
engine's (``sample_positions``, ``sample_children``, ``START``). Modules:

- ``kernels``: the numba kernels of TD self-play, the sets of a roll's best plays and
  supervised passes, and ``net_classes`` (the net that values each of many positions);
- ``targets``: the n-ply targets of a batch of positions (numba);
- ``train``: TD and supervised training, training sets (``build_dataset``, ``load_dataset``),
  their targets (``plied_targets``, ``rollout_targets``) and fits (``fit``);
- ``adam``: minibatch Adam on cross-entropy over precomputed inputs;
- ``head_refit``: refitting the gammon and backgammon outputs to full-game rollouts;
- ``filter``: distilling the filter net of variance-reduced rollouts.
"""
