/**
 * The seal runtime for Python, appended to a sealed test module (after its last line, so the
 * tests keep their line numbers; the functions exist once the module has loaded, before any test
 * runs). It holds no expected value: each sealed comparison hands it the actual value, which it
 * records as plain data (seal/canon.ts) in the file `$ORACLE_SEALS`, one JSON line per record, one
 * `os.write` each (O_APPEND). The path, `os.open`/`os.write`/`os.close` and `json.dumps` are taken
 * once, as the module loads (pytest and unittest import every test module before any test runs). Nothing here is trusted: the code under test can replace these
 * functions or write records itself, but it cannot know the values the oracle expects.
 *
 * `_oracle_seal(key, value)` records and returns True (the comparison is judged on the host);
 * `_oracle_is(key, value)` (`x is None/True/False`) records the value when it is one of those
 * singletons and an object of its own otherwise (numpy's `np.True_` is recorded by its Python value
 * elsewhere, but it is not `True`);
 * `_oracle_truth(key, value)` records `bool(value)` and returns True; `_oracle_side(key, side,
 * value)` records one side of a comparison whose expected side the test computes and returns the
 * value unchanged (the comparison still runs in the test, and the host checks both sides are plain
 * data that compare equal).
 */
export const PYTHON_RUNTIME = String.raw`

# --- oracle seal runtime (planted by the oracle; not part of the task's tests) ---
import os as _oracle_os, json as _oracle_json, sys as _oracle_sys, gc as _oracle_gc, types as _oracle_types

# Read once, as the module loads (collection, before any test runs): a test that clears the
# environment or patches os.write or json.dumps must not lose the records.
_ORACLE_PATH = _oracle_os.environ.get("ORACLE_SEALS")
_ORACLE_PATH = _oracle_os.path.abspath(_ORACLE_PATH) if _ORACLE_PATH else None
_oracle_open, _oracle_write_fd, _oracle_close = _oracle_os.open, _oracle_os.write, _oracle_os.close
_ORACLE_FLAGS = _oracle_os.O_WRONLY | _oracle_os.O_APPEND | _oracle_os.O_CREAT
_oracle_dumps = _oracle_json.dumps
_oracle_referents = _oracle_gc.get_referents
_ORACLE_MAPPINGPROXY = _oracle_types.MappingProxyType
_ORACLE_DICT_VALUES = type({}.values())
_ORACLE_RANGE = type(range(0))
# An OrderedDict's views (static types: odict_keys and odict_items compare as a dict's, odict_values
# by identity) and the collections.abc views (what UserDict.keys() and ChainMap.items() return),
# taken as the module loads.
import collections as _oracle_collections, collections.abc as _oracle_abc
_ORACLE_OD = _oracle_collections.OrderedDict()
_ORACLE_ODICT_SETS = (type(_ORACLE_OD.keys()), type(_ORACLE_OD.items()))
_ORACLE_ODICT_VALUES = type(_ORACLE_OD.values())
_ORACLE_ABC_VIEWS = (_oracle_abc.KeysView, _oracle_abc.ItemsView, _oracle_abc.ValuesView)
_ORACLE_MAPPING_OF = _oracle_abc.MappingView._mapping

_ORACLE_BUILTINS = (bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset)
_ORACLE_MAX_DEPTH = 64
_ORACLE_MAX_NODES = 200000
_ORACLE_MAX_LINE = 1 << 20


def _oracle_cls(t):
    return "%s.%s" % (getattr(t, "__module__", "?"), getattr(t, "__qualname__", getattr(t, "__name__", "?")))


def _oracle_own_eq(t, stop):
    for c in type.__getattribute__(t, "__mro__"):
        if c is stop or c is object:
            return False
        d = type.__dict__["__dict__"].__get__(c)
        if "__eq__" in d or "__ne__" in d:
            return True
    return False


def _oracle_builtin_base(t):
    for c in type.__getattribute__(t, "__mro__"):
        if c in _ORACLE_BUILTINS:
            return c
    return None


def _oracle_module_type(module, name):
    m = _oracle_sys.modules.get(module)
    return getattr(m, name, None) if m is not None else None


def _oracle_str(s):
    # json.dumps writes each surrogate code point as its own escape, and the host (UTF-16) reads a
    # high one followed by a low one as the astral character they encode, which Python holds
    # unequal to the pair: a str holding any surrogate is written as its code points.
    try:
        str.encode(s, "utf-8")
    except UnicodeEncodeError:
        return {"t": "str", "cp": [ord(c) for c in str.__iter__(s)]}
    return {"t": "str", "v": s}


def _oracle_as(node, t):
    # A value recorded as the builtin it compares like, but not an instance of it (a dict view, a
    # collections wrapper, a 0-d numpy array): its class goes with it, for the unittest asserts
    # that check isinstance first (assertListEqual, assertDictEqual, assertSetEqual, ...).
    node["cls"] = _oracle_cls(t)
    return node


def _oracle_mapping_data(m):
    # The dict an exact UserDict (its data) or ChainMap (its maps merged, the first one's values
    # winning) holds, each an exact dict; an exact dict itself; else None.
    t = type(m)
    if t is dict:
        return m
    if t is _oracle_module_type("collections", "UserDict"):
        data = object.__getattribute__(m, "__dict__").get("data")
        return data if type(data) is dict else None
    if t is _oracle_module_type("collections", "ChainMap"):
        maps = object.__getattribute__(m, "__dict__").get("maps")
        if type(maps) is list and all(type(x) is dict for x in maps):
            merged = {}
            for x in reversed(maps):
                dict.update(merged, x)
            return merged
    return None


def _oracle_long_hex(long_t, x):
    # A numpy long double's exact value as float.hex() would write it with a wider mantissa
    # ("0x<numerator>p-<log2 of the denominator>"), from numpy's own as_integer_ratio; NaN and the
    # infinities as float.hex() writes them.
    try:
        n, d = long_t.as_integer_ratio(x)
    except (OverflowError, ValueError):
        return float.hex(float(x))
    return "%s0x%xp-%d" % ("-" if n < 0 else "", -n if n < 0 else n, d.bit_length() - 1)


def _oracle_canon(v, budget, depth=0, stack=()):
    budget[0] -= 1
    if budget[0] < 0:
        return {"t": "big"}
    if depth > _ORACLE_MAX_DEPTH:
        return {"t": "deep"}
    t = type(v)
    if v is None:
        return {"t": "none"}
    if t is bool:
        return {"t": "bool", "v": v}
    if t is int:
        return {"t": "int", "x": hex(v)}
    if t is float:
        return {"t": "float", "x": v.hex()}
    if t is complex:
        return {"t": "complex", "re": v.real.hex(), "im": v.imag.hex()}
    if t is str:
        return _oracle_str(v)
    if t is bytes or t is bytearray:
        return {"t": "bytes", "v": v.hex()}
    if id(v) in stack:
        return {"t": "opaque", "cls": _oracle_cls(t), "why": "it contains itself"}
    inner = stack + (id(v),)
    sub = lambda x: _oracle_canon(x, budget, depth + 1, inner)
    if t is list or t is tuple:
        return {"t": t.__name__, "v": [sub(x) for x in t.__iter__(v)]}
    if t is dict:
        return {"t": "dict", "v": [[sub(k), sub(x)] for k, x in dict.items(v)]}
    if t is set or t is frozenset:
        return {"t": "set", "frozen": t is frozenset, "v": [sub(x) for x in t.__iter__(v)]}
    if t is type({}.keys()) or t is type({}.items()):
        return _oracle_as({"t": "set", "frozen": False, "v": [sub(x) for x in v]}, t)
    # (By identity: a tuple's membership test would run a metaclass's __eq__.)
    if t is _ORACLE_ODICT_SETS[0] or t is _ORACLE_ODICT_SETS[1]:
        return _oracle_as({"t": "set", "frozen": False, "v": [sub(x) for x in t.__iter__(v)]}, t)
    # A view of an exact UserDict or ChainMap (read as the runtime reads those classes, below): its
    # keys or items as a set (Set.__eq__: the same length, each in the other), its values by identity.
    if t is _ORACLE_ABC_VIEWS[0] or t is _ORACLE_ABC_VIEWS[1] or t is _ORACLE_ABC_VIEWS[2]:
        mapping = _ORACLE_MAPPING_OF.__get__(v)
        merged = _oracle_mapping_data(mapping)
        # An exact OrderedDict's keys or items too: a set, whose == takes no order. Not its values,
        # which the view yields in the OrderedDict's order, one dict's storage need not keep (move_to_end).
        if merged is None and t is not _ORACLE_ABC_VIEWS[2] and type(mapping) is _oracle_module_type("collections", "OrderedDict"):
            merged = mapping
        if merged is None:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "a view of a mapping other than an exact UserDict or ChainMap of dicts (or OrderedDict: its keys or items)"}
        if t is _ORACLE_ABC_VIEWS[2]:
            return {"t": "ident", "cls": _oracle_cls(t), "id": "%x" % id(v), "seq": [sub(x) for x in dict.values(merged)]}
        view = dict.keys(merged) if t is _ORACLE_ABC_VIEWS[0] else dict.items(merged)
        return _oracle_as({"t": "set", "frozen": False, "v": [sub(x) for x in view]}, t)
    for module, name, tag in (("collections", "OrderedDict", "odict"), ("collections", "Counter", "counter")):
        if t is _oracle_module_type(module, name):
            return {"t": tag, "v": [[sub(k), sub(x)] for k, x in dict.items(v)]}
    # The standard library's wrappers compare as what they wrap (UserDict and ChainMap by
    # Mapping.__eq__: dict(self.items()) == dict(other.items()); UserList and UserString by their
    # data), so a correct fix may return one where gold returns a dict, list or str. Read by type,
    # the exact class only, its data an exact builtin: anything else stays opaque.
    if t is _oracle_module_type("collections", "UserDict") or t is _oracle_module_type("collections", "UserList") or t is _oracle_module_type("collections", "UserString"):
        data = object.__getattribute__(v, "__dict__").get("data")
        if type(data) in (dict, list, str):
            return _oracle_as(sub(data), t)
        return {"t": "opaque", "cls": _oracle_cls(t), "why": "its data is not a dict, list or str"}
    if t is _oracle_module_type("collections", "ChainMap"):
        merged = _oracle_mapping_data(v)
        if merged is not None:
            return _oracle_as(sub(merged), t)
        return {"t": "opaque", "cls": _oracle_cls(t), "why": "its maps are not all dicts"}
    # A mappingproxy compares as the mapping it wraps (its == is the mapping's), which the
    # collector's C-level walk hands over without running any of its methods; a memoryview of
    # unsigned bytes, one dimension, compares with any buffer of the same bytes (== b"..."). Both
    # carry their class: unittest's assertDictEqual fails a mappingproxy. Another memoryview (a
    # released one, another format or shape: == unpacks its items) stays opaque.
    if t is _ORACLE_MAPPINGPROXY:
        wrapped = _oracle_referents(v)
        node = sub(wrapped[0]) if len(wrapped) == 1 else {"t": "opaque", "cls": _oracle_cls(t), "why": "its mapping cannot be read"}
        return node if node["t"] in ("opaque", "deep", "big") else _oracle_as(node, t)
    if t is memoryview:
        try:
            flat = memoryview.format.__get__(v) == "B" and memoryview.ndim.__get__(v) == 1
            data = memoryview.tobytes(v) if flat else None
        except ValueError:
            data = None
        if data is None:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "not one dimension of unsigned bytes, or released"}
        return _oracle_as({"t": "bytes", "v": data.hex()}, t)
    if t is _oracle_module_type("decimal", "Decimal"):
        # The host computes a Decimal's exact value: one whose exponent has more than five digits
        # (Decimal("1E+999999999"), which no context need allow) is not read.
        text = str(v)
        e = text.rfind("E")
        if e >= 0 and len(text) - e - 2 > 5:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "an exponent of more than five digits"}
        return {"t": "decimal", "v": text}
    if t is _oracle_module_type("fractions", "Fraction"):
        return {"t": "fraction", "n": hex(v.numerator), "d": hex(v.denominator)}
    # A numpy array, the exact class and numpy's own (a static type: not one a diff defines and
    # binds to numpy.ndarray): 0-d compares as its item under ==; one of one or more dimensions is recorded
    # with its shape and dtype (numpy's dtype.str, read through numpy.dtype's own descriptor), row
    # by row, each row an array of one dimension less: the host judges == as numpy and pytest do
    # (element-wise, then the truth of the result: its element when it has one, else a failure)
    # and pytest.approx as pytest reads a sequence (item by item, a row against a number: all of it).
    np_array = _oracle_module_type("numpy", "ndarray")
    if np_array is not None and t is np_array and not (type.__getattribute__(t, "__flags__") & 512):
        ndim = np_array.ndim.__get__(v)
        if ndim == 0:
            return _oracle_as(sub(np_array.__getitem__(v, ())), t)
        np_dtype = _oracle_module_type("numpy", "dtype")
        if np_dtype is None or type.__getattribute__(np_dtype, "__flags__") & 512:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "numpy.dtype is not numpy's"}
        dtype = type.__dict__["__dict__"].__get__(np_dtype)["str"].__get__(np_array.dtype.__get__(v))
        shape = [int(n) for n in np_array.shape.__get__(v)]
        return {"t": "ndarray", "dtype": dtype, "shape": shape, "v": [sub(x) for x in np_array.__iter__(v)]}
    # A numpy.matrix, numpy's own class (bound as numpy.matrix, over ndarray alone, no comparison or
    # truth of its own set on it): ==, !=, approx and the unittest asserts read it as its ndarray
    # view (its rows, 1xN matrices, are read by approx as an array's rows are: python-numpy image,
    # 840 cases alike), recorded through ndarray's own view(). A MaskedArray stays opaque: approx
    # of a list and its masked items differ from an array's.
    np_matrix = _oracle_module_type("numpy", "matrix")
    if np_array is not None and np_matrix is not None and t is np_matrix and not (type.__getattribute__(np_array, "__flags__") & 512) and type.__getattribute__(t, "__mro__") == (t, np_array, object):
        own = type.__dict__["__dict__"].__get__(t)
        if not any(k in own for k in ("__eq__", "__ne__", "__bool__", "__array_ufunc__", "__array_wrap__", "__array_function__")):
            return sub(np_array.view(v, np_array))
    # A numpy scalar, numpy's own static type (a diff's subclass naming its module "numpy" is a heap
    # type), as its item; a long double (whose item is itself) as a Python float or complex when
    # numpy's own == holds the two equal (the value is exactly one), else by its exact value (a
    # float's hex form with all of its 64-bit mantissa, _oracle_long_hex), tagged "np" as numpy's
    # scalars are: the host compares it exactly, as numpy does, and computes approx and
    # assertAlmostEqual in its precision (a correct fix computing in long double FAILed
    # VALUE_NOT_PLAIN_DATA under pytest.approx, which pytest passes: brief s27 pyfix, item 3).
    np_generic = _oracle_module_type("numpy", "generic")
    if np_generic is not None and isinstance(v, np_generic) and getattr(t, "__module__", "") == "numpy" and not (type.__getattribute__(t, "__flags__") & 512):
        # A str_ or bytes_ is a str or bytes, whose == it keeps; its item() drops trailing NULs
        # (np.str_("\x00") == "\x00", its item is ""): read as the builtin it is.
        if isinstance(v, str):
            return _oracle_str(str.__str__(v))
        if isinstance(v, bytes):
            return {"t": "bytes", "v": bytes.hex(v)}
        long_t = _oracle_module_type("numpy", "longdouble")
        wide = float if t is long_t else complex if t is _oracle_module_type("numpy", "clongdouble") else None
        try:
            item = wide(v) if wide is not None else np_generic.item(v)
            if wide is not None and not bool(t.__eq__(t(item), v)):
                if wide is float:
                    return {"t": "float", "x": _oracle_long_hex(long_t, v), "np": "longdouble"}
                parts = (t.real.__get__(v), t.imag.__get__(v))
                if type(parts[0]) is not long_t or type(parts[1]) is not long_t:
                    return {"t": "opaque", "cls": _oracle_cls(t), "why": "a complex long double whose parts are not long doubles"}
                return {"t": "complex", "re": _oracle_long_hex(long_t, parts[0]), "im": _oracle_long_hex(long_t, parts[1]), "np": "clongdouble"}
        except Exception:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "a numpy value without a Python equivalent"}
        if type(item) not in _ORACLE_BUILTINS and item is not None:
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "a numpy value without a Python equivalent"}
        node = sub(item)
        # Its type goes with a bool, an int, a float, a complex or a long double's complex: == against
        # a list or a tuple is numpy's, element-wise (np.float64(-0.0) == [-0.0] holds); for
        # assertAlmostEqual and ==, numpy's subtraction and round() are not Python's (np.float64(0.0005)
        # is within places=3 there), and a long double equals no Decimal, Fraction or int past int64
        # (python-eq.ts).
        if type(item) is int or type(item) is float or type(item) is bool or type(item) is complex or wide is complex:
            # (A long double by what it is: numpy 1.24 names it float128 on x86-64.)
            node["np"] = "longdouble" if wide is float else "clongdouble" if wide is complex else type.__getattribute__(t, "__name__")
        return node
    # pytest.approx of a list takes any sized iterable (len, then zip): the standard library's (a
    # dict's values, a deque, an array.array, a range; the exact class) carry their items in "seq",
    # read by the type's own iterator, for approx alone; under == each stays what it was (a
    # dict_values equals only itself, the others only their own kind).
    if t is _ORACLE_DICT_VALUES or t is _ORACLE_ODICT_VALUES or t is _ORACLE_RANGE or t is _oracle_module_type("collections", "deque") or t is _oracle_module_type("array", "array"):
        if t is _ORACLE_DICT_VALUES or t is _ORACLE_ODICT_VALUES:
            node = {"t": "ident", "cls": _oracle_cls(t), "id": "%x" % id(v)}
        else:
            node = {"t": "opaque", "cls": _oracle_cls(t), "why": "its class defines __eq__"}
        node["seq"] = [sub(x) for x in t.__iter__(v)]
        return node
    # unittest.mock's call objects (call(…), a mock's call_args, the items of call_args_list and
    # mock_calls): a tuple (name, args, kwargs) or (args, kwargs) whose __eq__ is _Call's own, recorded
    # as its items and its parent (a call built as call.send(…) has one, and two such calls compare
    # their parents), which the host compares as _Call.__eq__ does (python-eq.ts, callEq). The exact
    # class: anything else that says it is one is recorded as what it is.
    mock_call = _oracle_module_type("unittest.mock", "_Call")
    if mock_call is not None and t is mock_call:
        d = object.__getattribute__(v, "__dict__")
        parent = dict.get(d, "_mock_parent", v) if type(d) is dict else v
        if parent is v or (parent is not None and type(parent) is not mock_call):
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "a call without a parent that is a call or None"}
        node = {"t": "call", "v": [sub(x) for x in tuple.__iter__(v)]}
        if parent is not None:
            node["parent"] = sub(parent)
        return node
    base = _oracle_builtin_base(t)
    if base is not None:
        if _oracle_own_eq(t, base):
            return {"t": "opaque", "cls": _oracle_cls(t), "why": "a subclass of %s with its own __eq__" % base.__name__}
        if base is bool or base is int:
            return {"t": "int", "x": hex(int.__int__(v))}
        if base is float:
            return {"t": "float", "x": float.hex(float.__float__(v))}
        if base is complex:
            c = complex.__complex__(v)
            return {"t": "complex", "re": c.real.hex(), "im": c.imag.hex()}
        if base is str:
            return _oracle_str(str.__str__(v))
        if base is bytes or base is bytearray:
            return {"t": "bytes", "v": base.hex(v)}
        if base is dict:
            return {"t": "dict", "v": [[sub(k), sub(x)] for k, x in dict.items(v)]}
        if base is set or base is frozenset:
            return {"t": "set", "frozen": base is frozenset, "v": [sub(x) for x in base.__iter__(v)]}
        node = {"t": base.__name__, "v": [sub(x) for x in base.__iter__(v)]}
        # A strict subclass of list (mock's call_args_list and mock_calls are _CallList): Python asks
        # its reflected == first against a plain list, which makes its items the left operands.
        if base is list and t is not list:
            node["sub"] = _oracle_cls(t)
        return node
    dc = _oracle_sys.modules.get("dataclasses")
    # The class whose __eq__ instances of t use: t's own, or a base's (a plain subclass of a dataclass
    # inherits its generated __eq__, which compares that dataclass's fields when both sides are of one
    # class: attack review s27, finding 7). A __ne__ on the way is not the dataclass's.
    owner = None
    for c in type.__getattribute__(t, "__mro__"):
        if c is object:
            break
        d = type.__dict__["__dict__"].__get__(c)
        if "__ne__" in d:
            break
        if "__eq__" in d:
            owner = c
            break
    own = type.__dict__["__dict__"].__get__(owner) if owner is not None else {}
    params = own.get("__dataclass_params__")
    code = getattr(own.get("__eq__"), "__code__", None)
    if dc is not None and params is not None and dc.is_dataclass(owner) and getattr(params, "eq", False) and code is not None and (code.co_filename == "<string>" or code.co_filename.startswith("<dataclass")):
        return {"t": "dataclass", "cls": "%s#%x" % (_oracle_cls(t), id(t)), "v": [[f.name, sub(getattr(v, f.name))] for f in dc.fields(owner) if f.compare]}
    if not _oracle_own_eq(t, object):
        return {"t": "ident", "cls": _oracle_cls(t), "id": "%x" % id(v)}
    return {"t": "opaque", "cls": _oracle_cls(t), "why": "its class defines __eq__"}


def _oracle_write(key, side, value):
    try:
        canon = _oracle_canon(value, [_ORACLE_MAX_NODES])
    except RecursionError:
        canon = {"t": "deep"}
    line = _oracle_dumps({"k": key, "s": side, "v": canon}, ensure_ascii=True, separators=(",", ":"))
    if len(line) > _ORACLE_MAX_LINE:
        line = _oracle_dumps({"k": key, "s": side, "v": {"t": "big"}}, separators=(",", ":"))
    if not _ORACLE_PATH:
        return
    fd = _oracle_open(_ORACLE_PATH, _ORACLE_FLAGS, 0o600)
    try:
        _oracle_write_fd(fd, (line + "\n").encode("ascii"))
    finally:
        _oracle_close(fd)


def _oracle_seal(key, value):
    _oracle_write(key, 0, value)
    return True


class _oracle_not_the_singleton:
    pass


_ORACLE_OTHER = _oracle_not_the_singleton()


def _oracle_is(key, value):
    _oracle_write(key, 0, value if value is None or value is True or value is False else _ORACLE_OTHER)
    return True


def _oracle_truth(key, value):
    _oracle_write(key, 0, bool(value))
    return True


def _oracle_side(key, side, value):
    _oracle_write(key, side, value)
    return value
`;
