"""The Kubernetes REST surface over aiohttp: routing, negotiation, handlers, discovery, watch.

Handlers parse a request, call the store and serialize its answer; the rules live in
:mod:`fakeapi._state`.
"""
