"""Repository-wide pytest settings: nothing is autouse here; fixtures live with the tests that use them.

Property tests run without Hypothesis's per-example deadline (it asserts a wall-clock time, which
fails on a loaded machine and proves nothing about the code) and with derandomized examples, so a
run is the same on every machine: a failure always reproduces.
"""

from hypothesis import settings

settings.register_profile("fakeapi", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("fakeapi")
