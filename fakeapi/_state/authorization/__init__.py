"""RBAC as kube-apiserver enforces it, as pure functions over the RBAC objects of a cluster (docs/rbac.md).

Nothing here touches HTTP or the store: a decision reads Roles, RoleBindings, ClusterRoles and
ClusterRoleBindings from an :class:`RBACSource` and the request's :class:`Attributes`.

- ``authorize``: the decision (``system:masters``, then RBAC) and its reason; ``forbidden_error``
  the 403 for a request it did not allow;
- ``subject_access_review_status`` and friends: what the access and rules reviews answer;
- ``confirm_role_write`` and ``confirm_binding_write``: the escalation checks on RBAC writes;
- ``aggregation_updates``: the rules the clusterrole-aggregation controller writes;
- ``permissions_report``: what an identity's requests needed, lacked, and left unused.
"""

from fakeapi._state.authorization.aggregation import aggregated_rules, aggregation_updates
from fakeapi._state.authorization.attributes import (
    ALL_AUTHENTICATED,
    ALL_SERVICE_ACCOUNTS,
    ALL_UNAUTHENTICATED,
    ANONYMOUS,
    PRIVILEGED_GROUP,
    Attributes,
    UserInfo,
    service_account_groups,
    service_account_user,
    service_account_username,
    with_authenticated,
)
from fakeapi._state.authorization.authorizer import Decision, authorize
from fakeapi._state.authorization.escalation import confirm_binding_write, confirm_role_write
from fakeapi._state.authorization.forbidden import forbidden_error
from fakeapi._state.authorization.permissions import Observation, PermissionsReport, permissions_report
from fakeapi._state.authorization.reviews import (
    self_subject_access_review_status,
    self_subject_rules_review_status,
    subject_access_review_status,
)
from fakeapi._state.authorization.rules import PolicyRule
from fakeapi._state.authorization.sources import RBACSource, StaticRBAC

__all__ = [
    "ALL_AUTHENTICATED",
    "ALL_SERVICE_ACCOUNTS",
    "ALL_UNAUTHENTICATED",
    "ANONYMOUS",
    "PRIVILEGED_GROUP",
    "Attributes",
    "Decision",
    "Observation",
    "PermissionsReport",
    "PolicyRule",
    "RBACSource",
    "StaticRBAC",
    "UserInfo",
    "aggregated_rules",
    "aggregation_updates",
    "authorize",
    "confirm_binding_write",
    "confirm_role_write",
    "forbidden_error",
    "permissions_report",
    "self_subject_access_review_status",
    "self_subject_rules_review_status",
    "service_account_groups",
    "service_account_user",
    "service_account_username",
    "subject_access_review_status",
    "with_authenticated",
]
