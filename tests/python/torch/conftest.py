"""Fixtures of the exporter's tests (helpers: torch_helpers.py)."""

import pytest


@pytest.fixture
def user_registry():
    """Restores oxs.torch's user registrations after the test."""
    from oxs.torch import _library

    saved = {k: list(v) for k, v in _library._USER.items()}
    yield
    _library._USER.clear()
    _library._USER.update(saved)
