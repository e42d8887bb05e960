"""``meta.k8s.io/v1`` Table answers, the rows ``kubectl get`` prints.

Reproduced from kube-apiserver 1.32, one concern per module:

* :mod:`.table`: the Table itself and its row ``object`` per ``includeObject``
  (``apiserver/pkg/endpoints/handlers/response.go`` ``asTable``, ``metav1.ValidateTableOptions``);
* :mod:`.printers`: which printer a resource gets;
* :mod:`.custom_columns` and :mod:`.jsonpath`: custom resources
  (``apiextensions-apiserver/.../tableconvertor/tableconvertor.go`` and
  ``serveDefaultColumnsIfEmpty``): Name, then the version's ``additionalPrinterColumns`` evaluated
  with client-go's jsonpath (missing keys allowed), or one Age column;
* :mod:`.core`, :mod:`.pods`, :mod:`.workloads`, :mod:`.events`, :mod:`.networking`,
  :mod:`.cluster`, :mod:`.access`: built-ins (``pkg/printers/internalversion/printers.go``, always
  rendered wide as the server's TableConvertor does), each kind's printer named by its descriptor,
  on the columns of :mod:`.columns` with the descriptions of :mod:`.swagger_docs`;
* every other resource (Roles, ClusterRoles, LimitRanges, CRDs, ...), with no printer upstream either
  (``apiserver/pkg/registry/rest/table.go``): Name, Created At;
* :mod:`.durations`: ages by ``HumanDuration`` (``apimachinery/pkg/util/duration/duration.go``).
"""

from __future__ import annotations

from fakeapi._state.tables.durations import human_duration
from fakeapi._state.tables.table import invalid_include_object, table_for

__all__ = ["human_duration", "invalid_include_object", "table_for"]
