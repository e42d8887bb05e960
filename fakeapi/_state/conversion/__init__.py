"""Custom resource conversion between a CRD's versions (``apiextensions-apiserver/pkg/apiserver/conversion``).

:mod:`.converter` is ``crConverter`` with the ``None`` strategy's ``nopConverter``;
:mod:`.webhook_converter` is ``webhookConverter``: the ConversionReview sent, the answer checked;
:mod:`.object_meta` is what the apiserver keeps of the metadata a webhook answers with.
"""

from fakeapi._state.conversion.converter import ConversionError, CRDConversion, convert_object

__all__ = ["CRDConversion", "ConversionError", "convert_object"]
