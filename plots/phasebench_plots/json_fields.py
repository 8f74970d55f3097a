"""Small typed accessors for JSON input that raise InputError naming file and field.

The charts use a subset of each file; checking that subset up front means a bad file fails
before any chart is written, with a message that points at the field instead of a
KeyError deep inside matplotlib code.
"""
from .errors import InputError

NUMBER = (int, float)


def _type_name(types):
    names = {dict: "an object", list: "an array", str: "a string", bool: "true or false",
             int: "a number", float: "a number", type(None): "null"}
    return " or ".join(sorted({names.get(t, t.__name__) for t in types}))


class Fields:
    """Reads fields of one JSON value at a known path inside a known file."""

    def __init__(self, path, value, where=""):
        self.path = path
        self.value = value
        self.where = where

    def _sub(self, key):
        if isinstance(key, int):
            return f"{self.where}[{key}]"
        return f"{self.where}.{key}" if self.where else key

    def fail(self, key, message):
        raise InputError(self.path, self._sub(key) if key is not None else self.where or None, message)

    def get(self, key, types, nullable=False, optional=False):
        """The value of `key`, checked against `types` (a tuple)."""
        if not isinstance(self.value, (dict, list)):
            self.fail(None, f"expected {_type_name((dict,))}")
        try:
            v = self.value[key]
        except (KeyError, IndexError):
            if optional:
                return None
            self.fail(key, "missing")
        if v is None and (nullable or optional):
            return None
        # bool is an int in Python; a number field holding true is still wrong.
        if not isinstance(v, types) or (isinstance(v, bool) and bool not in types):
            self.fail(key, f"expected {_type_name(types)}, found {json_kind(v)}")
        return v

    def child(self, key, types=(dict,), nullable=False, optional=False):
        """Fields of an object or array below this one (None when allowed and absent)."""
        v = self.get(key, types, nullable=nullable, optional=optional)
        return None if v is None else Fields(self.path, v, self._sub(key))

    def items(self):
        """(key, Fields) of each member of an array, or of an object's values."""
        if isinstance(self.value, list):
            keys = range(len(self.value))
        else:
            keys = list(self.value)
        for k in keys:
            yield k, Fields(self.path, self.value[k], self._sub(k))


def json_kind(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, NUMBER):
        return "a number"
    if isinstance(v, str):
        return f"the string {v!r}" if len(v) < 40 else "a string"
    return "an array" if isinstance(v, list) else "an object"
