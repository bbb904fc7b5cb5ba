"""The hostile-input tests share the bad-input tests' fixture: a good file beside each bad one."""

from tests.check.test_check_bad_input import good

__all__ = ["good"]
