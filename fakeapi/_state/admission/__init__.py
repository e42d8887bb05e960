"""The admission chain: the in-process plugins, the webhook dispatchers and the plugin switches (docs/admission.md)."""

from fakeapi._state.admission.attributes import CREATE, DELETE, UPDATE, Attributes, RequestUser, operation_options
from fakeapi._state.admission.calling import ServiceAddresses, TransportError, WebhookCall, WebhookCaller
from fakeapi._state.admission.chain import AdmissionChain
from fakeapi._state.admission.plugins import AdmissionPluginError, enabled_plugins
from fakeapi._state.admission.review import CallFailed, HTTPAnswer

__all__ = [
    "CREATE",
    "DELETE",
    "UPDATE",
    "AdmissionChain",
    "AdmissionPluginError",
    "Attributes",
    "CallFailed",
    "HTTPAnswer",
    "RequestUser",
    "ServiceAddresses",
    "TransportError",
    "WebhookCall",
    "WebhookCaller",
    "enabled_plugins",
    "operation_options",
]
