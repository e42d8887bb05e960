"""The apiserver's state and its rules: the store, resource types, strategies, watches, journal.

No HTTP here: the store is called with decoded objects and raises :class:`fakeapi.errors.APIError`.
"""
