"""Errors that are the user's input, not a bug: they map to exit status 2.

Each names the file and, where one is at fault, the field (as a JSON path such as
`runs[2].samples[0].prefill.wall_ms`), so the user can open the file and see the problem.
"""


class InputError(Exception):
    """A file or option that the charts cannot use."""

    def __init__(self, path, field, message):
        self.path = str(path) if path is not None else None
        self.field = field
        self.message = message
        where = []
        if self.path:
            where.append(self.path)
        if field:
            where.append(f"field '{field}'")
        super().__init__(": ".join(where + [message]))
