"""Training the evaluator: TD self-play, training sets labelled by look-ahead or rollouts,
supervised fits (SGD or Adam), the filter net, the gammon heads and weight averaging.

Only ``bgtui train`` (``bgtui.cli.train``) imports this package; the engine, the analysis
services, the UI and the user commands never do. Modules:

- ``kernels``: the numba kernels of self-play, position sampling and supervised passes;
- ``targets``: the n-ply targets of a batch of positions (numba);
- ``train``: TD and supervised training, training sets (``build_dataset``, ``load_dataset``)
  and fits (``fit``);
- ``adam``: minibatch Adam on cross-entropy over precomputed inputs;
- ``head_refit``: refitting the gammon and backgammon outputs to full-game rollouts;
- ``filter``: distilling the filter net of variance-reduced rollouts.
"""
