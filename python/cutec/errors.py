"""The exception every cutec failure raises from Python."""


class CutecError(RuntimeError):
    """A cutec status with its message.

    status: the status's name as the runtime gives it (cutec_status_name),
    e.g. "CUTEC_ERR_BAD_LEADING_DIM"; code: its value (None for a check made
    in Python before any call, whose status names the runtime's closest
    one); message: the runtime's message (cutec_runtime_message) or the
    Python check's.
    """

    def __init__(self, status, message, code=None):
        super().__init__(f"{status}: {message}")
        self.status = status
        self.code = code
        self.message = message
