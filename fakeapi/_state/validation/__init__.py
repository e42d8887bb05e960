"""What the apiserver validates, with its field paths and messages (docs/validation.md).

* :mod:`.field`: field errors and how they print (apimachinery ``util/validation/field``), the one
  place every validation message is built;
* :mod:`.names`: the string formats (``util/validation/validation.go``) and the object name rules;
* :mod:`.objectmeta`: ObjectMeta, labels, annotations, owner references, finalizers, selectors
  (``api/validation/objectmeta.go``, ``meta/v1/validation``);
* :mod:`.rules`: what a built-in kind's descriptor holds of its validation;
* the built-in kinds' own rules, as ``pkg/apis/<group>/validation/validation.go`` has them:
  :mod:`.pods` and :mod:`.containers` (the pod spec every workload holds), :mod:`.core`,
  :mod:`.apps`, :mod:`.rbac`; :mod:`.values` prints the structs their errors report;
* the webhook configurations: :mod:`.webhook_configurations` (each webhook, the update leniencies),
  :mod:`.webhook_client_config` (the URL as Go's ``url.Parse`` reads it, the service reference) and
  :mod:`.admissionregistration` (the match conditions).
"""
