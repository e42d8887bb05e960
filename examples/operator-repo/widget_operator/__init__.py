"""The Widget operator: kopf handlers in :mod:`widget_operator.handlers`."""
