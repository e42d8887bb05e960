"""The engine's own dependencies: an extra of the distribution, which the server alone does not need.

Without them the package still imports (its pytest plugin is registered wherever fakeapi is
installed), and the first use says what to install instead of failing deep in an import.
"""

from __future__ import annotations

__all__ = ["engine_dependencies_missing", "require_engine_dependencies"]

_ENGINE_DEPENDENCIES = ("kubernetes_asyncio", "rich")


def engine_dependencies_missing(error: ModuleNotFoundError) -> ModuleNotFoundError:
    """The error to raise when one of the engine's own dependencies is absent (else ``error`` itself)."""
    missing = (error.name or "").split(".")[0]
    if missing in _ENGINE_DEPENDENCIES:
        return ModuleNotFoundError(
            f"the scenario engine needs {missing}: pip install 'fakeapi-k8s[scenarios]'", name=error.name
        )
    return error


def require_engine_dependencies() -> None:
    try:
        import kubernetes_asyncio  # noqa: F401
    except ModuleNotFoundError as error:
        raise engine_dependencies_missing(error) from error
