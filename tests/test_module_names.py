"""Test modules are collected by basename (the test folders are not packages): two of one name in
different folders stop the whole run with pytest's "import file mismatch"."""

import collections
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def test_no_two_test_modules_share_a_name():
    seen = collections.defaultdict(list)
    for folder, _, files in os.walk(HERE):
        for name in files:
            if name.startswith("test_") and name.endswith(".py"):
                seen[name].append(os.path.relpath(os.path.join(folder, name), HERE))
    assert not {name: paths for name, paths in seen.items() if len(paths) > 1}
