"""SHA-256 of a set of named numpy arrays (names, dtypes, shapes and bytes), for data files."""

import hashlib

import numpy as np


def arrays_sha256(arrays: dict) -> str:
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(key.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()
