"""The code a computation runs, as a digest: the part of a results-cache key that follows the code.

:func:`code_fingerprint` starts from a callable (the ``compute`` given to
:func:`greenelm_book.store.results_cache.memoize`, often a lambda in a chapter) and walks everything its
code reaches, transitively:

* a *unit* is one piece of source: a function (or lambda), a whole class, or the module-level
  statements that bind a constant. Its text is its syntax tree (``ast.dump``, no positions) with
  docstrings and annotations stripped, so comments, docstrings, formatting and type hints do not
  count, and a unit does not record the module it lives in: moving a helper to another module (and
  importing it from there) keeps the key. The imports written *inside* a unit are part of its
  text; an import of the book's own modules is written there under the module's name before the
  modules moved into rooms (:mod:`greenelm_book._former_names`), so the function-level
  ``from ..judging.report import x`` of a chapter reads ``from .report import x``, as it did when
  the cache of record was made: the move kept every key. A module moved again gets its entry there.
* the names a unit uses are resolved the way Python would: the unit's own imports (function-level
  ``from .bench import machine_info``), the function's closure, then its module's globals, and a
  dotted name ``solvers.solve`` through the modules it passes. A name bound to a function or class
  of a *followed* package (``greenelm``, ``greenelm_book``, and the package the computation itself
  is defined in) is walked in turn; a name bound to a constant of such a module is the unit of the
  statements that bind it (``WIDTHS = (...)``, ``_SOLVERS = {"lu": _lu}``: their text, not the
  value they hold now, so a module-level cache filling up does not change the key); a module of
  ours used as a value (``getattr(solvers, name)``) brings in every function, class and constant
  it defines. Data held by a chapter's globals or a closure (arrays, splits) is not code and is
  left out: what the computation is given belongs in its ``params``.
* anything from another distribution (numpy, scipy, torch, ...) is recorded by that
  distribution's installed version; the standard library and builtins are not recorded.

A unit whose source cannot be found (a function compiled from a string) is taken from its code
object (bytecode, names and constants; positions and the docstring left out) instead.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.metadata
import importlib.util
import inspect
import linecache
import sys
import types
from functools import lru_cache, partial
from pathlib import Path

from .. import _former_names

__all__ = ["PACKAGES", "code_fingerprint"]

#: packages whose code is walked (besides the package the computation is defined in)
PACKAGES = ("greenelm", "greenelm_book")
_MISSING = object()
_SIMPLE = (type(None), bool, int, float, complex, str, bytes)


# ------------------------------------------------------------------ source and syntax trees

def _source_text(filename: str, module_globals=None) -> str | None:
    """The text of a source file, or of an entry of ``linecache`` (a notebook cell)."""
    path = Path(filename)
    if path.suffix == ".py" and path.is_file():
        try:
            return path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    lines = linecache.getlines(filename, module_globals)
    return "".join(lines) or None


@lru_cache(maxsize=256)
def _parse(text: str) -> ast.Module | None:
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return None


def _tree(filename: str | None, module_globals=None) -> ast.Module | None:
    if not filename:
        return None
    text = _source_text(filename, module_globals)
    return _parse(text) if text else None


class _Normalise(ast.NodeTransformer):
    """Strip docstrings and annotations (neither runs)."""

    def _body(self, node):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            body = body[1:] or [ast.Pass()]
        node.body = body
        return node

    def visit_FunctionDef(self, node):
        node.returns = None
        self.generic_visit(node)
        return self._body(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.generic_visit(node)
        return self._body(node)

    def visit_arg(self, node):
        node.annotation = None
        return node

    def visit_AnnAssign(self, node):
        node.annotation = ast.Constant(None)
        self.generic_visit(node)
        return node


class _FormerImports(ast.NodeTransformer):
    """Imports of the book's own modules written as they read before the modules moved into rooms
    (:mod:`greenelm_book._former_names`): ``from ..judging.report import x`` in a chapter is
    ``from .report import x``, so the move keeps every key. A relative import stays relative, an
    absolute one absolute; imports of anything else are left as written."""

    def __init__(self, package: str):
        self.package = package

    def visit_ImportFrom(self, node):
        if not node.level and _top(node.module) != _former_names.PACKAGE:
            return node
        target = _absolute(node.module, node.level, self.package)
        if _top(target) != _former_names.PACKAGE:
            return node
        parents, names = set(), []
        for alias in node.names:
            full = f"{target}.{alias.name}"
            former = _former_names.former_name(full)
            if former != full:                          # ``from <room> import <module>``
                parent, _, leaf = former.rpartition(".")
                parents.add(parent)
                names.append(ast.alias(leaf, None if (alias.asname or alias.name) == leaf else
                                       (alias.asname or alias.name)))
            else:
                parents.add(_former_names.former_name(target))
                names.append(alias)
        if len(parents) != 1:                           # mixed rooms in one statement: leave it
            return node
        (module,) = parents
        if node.level:
            rest = module[len(_former_names.PACKAGE) + 1:] if module != _former_names.PACKAGE else None
            return ast.ImportFrom(module=rest, names=names, level=1)
        return ast.ImportFrom(module=module, names=names, level=0)

    def visit_Import(self, node):
        return ast.Import(names=[ast.alias(_former_names.former_name(a.name), a.asname) for a in node.names])


def _dump(nodes, package: str = "") -> str:
    """The units' syntax trees as text: positions, docstrings and annotations left out, the book's
    own imports under their former names (:class:`_FormerImports`)."""
    import copy
    return "\n".join(ast.dump(_FormerImports(package).visit(_Normalise().visit(copy.deepcopy(n))),
                              include_attributes=False) for n in nodes)


_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _scope_children(body):
    """The definitions and lambdas of one scope: its statements, nested compound statements
    (``if``/``try``/``with``/loops) included, but not the insides of nested defs, classes or lambdas."""
    stack = list(body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, (*_DEFS, ast.Lambda)):
            yield node
            if isinstance(node, ast.Lambda):
                continue
            in_this_scope = list(node.decorator_list)      # decorators and defaults run here
            if not isinstance(node, ast.ClassDef):
                in_this_scope += [*node.args.defaults, *[d for d in node.args.kw_defaults if d]]
            stack[:0] = in_this_scope
            continue
        stack[:0] = list(ast.iter_child_nodes(node))


def _scope_nodes(tree: ast.Module, qualname: str) -> list[ast.AST]:
    """The definitions or lambdas named by ``qualname`` (``f``, ``C.m``, ``f.<locals>.g``,
    ``f.<locals>.<lambda>``), found by their nesting, not by line numbers."""
    scopes: list = [tree]
    for part in qualname.split("."):
        if part == "<locals>":
            continue
        found = []
        for scope in scopes:
            body = scope.body if isinstance(scope, (ast.Module, *_DEFS)) else [scope.body]
            for node in _scope_children(body):
                if part == "<lambda>" and isinstance(node, ast.Lambda):
                    found.append(node)
                elif isinstance(node, _DEFS) and node.name == part:
                    found.append(node)
        scopes = found
    return scopes


def _function_nodes(tree: ast.Module, code: types.CodeType, qualname: str | None = None) -> list[ast.AST]:
    """The ``def`` or lambda of ``code`` in ``tree``: by its qualified name (so lines inserted or
    removed elsewhere in the file, even while a computation runs, find the same node), and by its
    first line among several of the same name (redefinitions, lambdas of one scope) or when
    ``qualname`` is borrowed (a ``functools.wraps`` wrapper carries its wrapped function's)."""
    first = code.co_firstlineno
    if qualname and qualname.rsplit(".", 1)[-1] == code.co_name:   # not a wrapper's borrowed name
        candidates = [n for n in _scope_nodes(tree, qualname)
                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
        if len(candidates) == 1:
            return candidates
        by_line = [n for n in candidates if first in _first_lines(n)]
        if by_line:
            return by_line
    if code.co_name == "<lambda>":
        return [n for n in ast.walk(tree) if isinstance(n, ast.Lambda) and n.lineno == first]
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == code.co_name and first in _first_lines(n)]


def _first_lines(node) -> set[int]:
    return {node.lineno} | ({node.decorator_list[0].lineno} if getattr(node, "decorator_list", None) else set())


def _class_nodes(tree: ast.Module, qualname: str) -> list[ast.ClassDef]:
    found = []

    def walk(body, prefix):
        for n in body:
            if isinstance(n, ast.ClassDef):
                name = prefix + n.name
                if name == qualname:
                    found.append(n)
                walk(n.body, name + ".")
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                walk(n.body, prefix + n.name + ".<locals>.")
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(n, field, None)
                    if isinstance(inner, list):
                        walk(inner, prefix)

    walk(tree.body, "")
    return found


def _module_bindings(tree: ast.Module, name: str) -> list[ast.stmt]:
    """The module-level statements (through if/try/with/for blocks) that bind ``name``."""
    found = []

    def binds(target) -> bool:
        return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))

    def walk(body):
        for n in body:
            if isinstance(n, ast.Assign) and any(binds(t) for t in n.targets):
                found.append(n)
            elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and binds(n.target):
                found.append(n)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                if any((a.asname or a.name.split(".")[0]) == name for a in n.names):
                    found.append(n)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if n.name == name:
                    found.append(n)
            else:
                if isinstance(n, ast.For) and binds(n.target):
                    found.append(n)
                for field in ("body", "orelse", "finalbody", "handlers"):
                    inner = getattr(n, field, None)
                    if isinstance(inner, list):
                        walk(inner)

    walk(tree.body)
    return found


def _dotted_names(nodes) -> list[list[str]]:
    """Every name used, as its longest dotted chain (``solvers.solve`` -> ["solvers", "solve"])."""
    chains, inner = [], set()
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Attribute) and id(n) not in inner:
                chain, base = [], n
                while isinstance(base, ast.Attribute):
                    chain.append(base.attr)
                    inner.add(id(base))
                    base = base.value
                if isinstance(base, ast.Name):
                    inner.add(id(base))
                    chains.append([base.id, *reversed(chain)])
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and id(n) not in inner:
                chains.append([n.id])
    return chains


def _absolute(module: str | None, level: int, package: str) -> str:
    if not level:
        return module or ""
    parts = package.split(".")
    base = ".".join(parts[: len(parts) - level + 1]) if level <= len(parts) else ""
    return f"{base}.{module}" if module else base


def _local_imports(nodes, package: str) -> dict[str, tuple]:
    """Names bound by import statements inside the units: name -> ("module", full) or ("from", module, attr)."""
    out = {}
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Import):
                for a in n.names:
                    if a.asname:
                        out[a.asname] = ("module", a.name)
                    else:
                        out[a.name.split(".")[0]] = ("module", a.name.split(".")[0])
            elif isinstance(n, ast.ImportFrom):
                source = _absolute(n.module, n.level, package)
                for a in n.names:
                    if a.name != "*":
                        out[a.asname or a.name] = ("from", source, a.name)
    return out


# ------------------------------------------------------------------ the walk

def _top(module: str | None) -> str:
    return (module or "").split(".")[0]


@lru_cache(maxsize=None)
def _distribution_version(top: str) -> str | None:
    if not top or top in sys.stdlib_module_names or top in sys.builtin_module_names or top == "builtins":
        return None
    names = importlib.metadata.packages_distributions().get(top) or [top]
    for dist in names:
        try:
            return f"{dist} {importlib.metadata.version(dist)}"
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _package_of(module: types.ModuleType) -> str:
    """The package a module's relative imports start from: its own name for a package, else its
    parent's; for a module run as ``python -m package.module`` (named ``__main__``) the package it
    was run from (``__spec__``), so its relative imports resolve as they do when it is imported."""
    name = module.__name__
    if name == "__main__":
        spec = getattr(module, "__spec__", None)
        name = spec.name if spec is not None else ""
    return name if hasattr(module, "__path__") else name.rpartition(".")[0]


class _Walk:
    def __init__(self, follow: set[str]):
        self.follow = follow
        self.units: dict[str, str] = {}          # digest -> label (for the manifest)
        self.items: dict[str, str] = {}          # label -> digest (to say what changed)
        self.libraries: set[str] = set()
        self.seen: set = set()

    # -------------------------------------------------------------- classification
    def ours(self, module_name: str | None) -> bool:
        return _top(module_name) in self.follow

    def external(self, module_name: str | None) -> None:
        version = _distribution_version(_top(module_name))
        if version:
            self.libraries.add(version)

    def add(self, label: str, text: str) -> None:
        digest = hashlib.sha256(text.encode()).hexdigest()
        self.units[digest] = label
        self.items[label] = digest

    # -------------------------------------------------------------- objects
    def obj(self, value, chain=()) -> None:
        """Walk an object reached by name; ``chain`` are the attributes taken after it."""
        if isinstance(value, types.ModuleType):
            if not self.ours(value.__name__):
                self.external(value.__name__)
            elif chain:
                self.module_attr(value.__name__, chain[0], chain[1:])
            else:
                self.whole_module(value)
            return
        if isinstance(value, partial):
            self.obj(value.func)
            for item in (*value.args, *value.keywords.values()):
                if callable(item):
                    self.obj(item)
            return
        if isinstance(value, (staticmethod, classmethod)):
            value = value.__func__
        if isinstance(value, types.MethodType):
            value = value.__func__
        if callable(value) and hasattr(value, "__wrapped__"):
            value = inspect.unwrap(value)
        if isinstance(value, types.FunctionType):
            if self.ours(value.__module__) or value.__module__ is None:
                self.function(value)
            else:
                self.external(value.__module__)
            return
        if isinstance(value, type):
            if self.ours(value.__module__):
                self.klass(value)
            else:
                self.external(value.__module__)
            return
        module = getattr(type(value), "__module__", None)
        if callable(value) and not isinstance(value, type) and module == "builtins":
            self.external(getattr(value, "__module__", None))
            return
        if self.ours(module):
            self.klass(type(value))
        else:
            self.external(module)

    def whole_module(self, module: types.ModuleType) -> None:
        if ("module", module.__name__) in self.seen:
            return
        self.seen.add(("module", module.__name__))
        for name, value in sorted(vars(module).items()):
            if name.startswith("__"):
                continue
            defined_here = getattr(value, "__module__", None) == module.__name__
            if isinstance(value, (types.FunctionType, type)) and defined_here:
                self.obj(value)
            elif not isinstance(value, (types.ModuleType, types.FunctionType, type)) and not callable(value):
                self.module_attr(module.__name__, name, ())

    def module_attr(self, module_name: str, name: str, chain) -> None:
        """``module_name.name`` (then ``chain``): a function/class/module by its object, a constant by
        the statements binding it in that module's source."""
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            return
        value = getattr(module, name, _MISSING)
        if value is _MISSING:
            spec_name = f"{module_name}.{name}"
            if hasattr(module, "__path__") and importlib.util.find_spec(spec_name) is not None:
                value = importlib.import_module(spec_name)
            else:
                return
        if isinstance(value, (types.ModuleType, types.FunctionType, type, partial)) or callable(value):
            self.obj(value, chain)
            return
        self.constant(module, name)

    def constant(self, module: types.ModuleType, name: str) -> None:
        key = ("constant", module.__name__, name)
        if key in self.seen:
            return
        self.seen.add(key)
        tree = _tree(getattr(module, "__file__", None))
        statements = _module_bindings(tree, name) if tree is not None else []
        imports = [s for s in statements if isinstance(s, (ast.Import, ast.ImportFrom))]
        assigned = [s for s in statements if s not in imports]
        package = _package_of(module)
        for statement in imports:            # a re-exported constant: walk it where it is defined
            binding = _local_imports([statement], package).get(name)
            if binding and binding[0] == "from":
                if self.ours(binding[1]):
                    self.module_attr(binding[1], binding[2], ())
                else:
                    self.external(binding[1])
        if assigned:
            self.add(f"{module.__name__}.{name}", "constant " + _dump(assigned, package))
            self.names(assigned, vars(module), package, closure={})
        elif not imports:                    # bound some other way: its value, when it is simple
            self.add(f"{module.__name__}.{name}", f"value {name} " + _plain(getattr(module, name, None)))

    def function(self, func: types.FunctionType) -> None:
        code = func.__code__
        if ("code", code) in self.seen:
            return
        self.seen.add(("code", code))
        label = f"{func.__module__}.{func.__qualname__}"
        tree = _tree(code.co_filename, func.__globals__)
        nodes = _function_nodes(tree, code, func.__qualname__) if tree is not None else []
        closure = {}
        for name, cell in zip(code.co_freevars, func.__closure__ or ()):
            try:
                closure[name] = cell.cell_contents
            except ValueError:
                continue
        module = sys.modules.get(func.__module__)
        package = _package_of(module) if module is not None else ""
        if nodes:
            self.add(label, "function " + _dump(nodes, package))
            self.names(nodes, func.__globals__, package, closure)
        else:
            self.add(label, "code " + _code_text(code))
            for name in sorted(_code_names(code)):
                self.name([name], func.__globals__, package, closure, {})
            for value in (*(func.__defaults__ or ()), *(func.__kwdefaults__ or {}).values()):
                if callable(value):
                    self.obj(value)

    def klass(self, cls: type) -> None:
        if ("class", cls) in self.seen:
            return
        self.seen.add(("class", cls))
        module = sys.modules.get(cls.__module__)
        if module is None:
            return
        tree = _tree(getattr(module, "__file__", None))
        nodes = _class_nodes(tree, cls.__qualname__) if tree is not None else []
        label = f"{cls.__module__}.{cls.__qualname__}"
        if nodes:
            self.add(label, "class " + _dump(nodes, _package_of(module)))
            self.names(nodes, vars(module), _package_of(module), closure={})
        else:
            self.add(label, f"class {cls.__qualname__} (no source)")
            for value in vars(cls).values():
                if isinstance(value, (types.FunctionType, staticmethod, classmethod, property)):
                    self.obj(value.fget if isinstance(value, property) else value)
        for base in cls.__mro__[1:]:
            self.obj(base)

    # -------------------------------------------------------------- names
    def names(self, nodes, namespace: dict, package: str, closure: dict) -> None:
        imports = _local_imports(nodes, package)
        for chain in _dotted_names(nodes):
            self.name(chain, namespace, package, closure, imports)

    def name(self, chain, namespace: dict, package: str, closure: dict, imports: dict) -> None:
        head, rest = chain[0], tuple(chain[1:])
        if head in imports:
            binding = imports[head]
            if binding[0] == "module":
                if not self.ours(binding[1]):
                    self.external(binding[1])
                    return
                try:
                    self.obj(importlib.import_module(binding[1]), rest)
                except ImportError:
                    pass
            elif self.ours(binding[1]):
                self.module_attr(binding[1], binding[2], rest)
            else:
                self.external(binding[1])
            return
        if head in closure:
            value = closure[head]
            if _is_code(value):
                self.obj(value, rest)
            return
        value = namespace.get(head, _MISSING)
        if value is _MISSING:
            return                                    # a local variable or a builtin
        module_name = namespace.get("__name__")
        if _is_code(value):
            self.obj(value, rest)
        elif self.ours(module_name) and module_name != "__main__" and module_name in sys.modules:
            self.constant(sys.modules[module_name], head)
        # else: data in a chapter's namespace, which the params describe


def _is_code(value) -> bool:
    return isinstance(value, (types.ModuleType, types.FunctionType, types.MethodType, type, partial,
                              staticmethod, classmethod)) or (callable(value) and hasattr(value, "__wrapped__"))


def _plain(value) -> str:
    """A stable text for a simple value (no memory addresses): literals and containers of them."""
    if isinstance(value, _SIMPLE):
        return repr(value)
    if isinstance(value, (tuple, list, frozenset, set)):
        items = [_plain(v) for v in value]
        return f"{type(value).__name__}({', '.join(sorted(items) if isinstance(value, (set, frozenset)) else items)})"
    if isinstance(value, dict):
        return "dict(" + ", ".join(sorted(f"{_plain(k)}: {_plain(v)}" for k, v in value.items())) + ")"
    return f"<{_former_names.former_name(type(value).__module__)}.{type(value).__qualname__}>"


def _code_text(code: types.CodeType) -> str:
    consts = list(code.co_consts)
    if code.co_name != "<lambda>" and not code.co_name.startswith("<") and consts and isinstance(consts[0], str):
        consts[0] = None                              # the docstring
    parts = [code.co_code.hex(), repr(code.co_names), repr(code.co_varnames), repr(code.co_freevars),
             repr((code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags))]
    for c in consts:
        parts.append(_code_text(c) if isinstance(c, types.CodeType) else _plain(c))
    return "|".join(parts)


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def code_fingerprint(compute) -> dict:
    """What ``compute`` runs: ``{"digest": hex, "units": [labels...], "items": {label: digest16},
    "libraries": [...]}``.

    ``digest`` is the SHA-256 of the sorted unit digests and the versions of the other
    distributions the code uses (see the module docstring); ``units`` name the functions, classes
    and constants walked (for the manifest; moving a helper changes its label, never the digest);
    ``items`` gives each unit's own digest (16 hex digits), so that a changed key can be explained
    unit by unit (:func:`greenelm_book.store.results_cache.explain_change`).
    """
    root_module = getattr(inspect.unwrap(compute) if callable(compute) else compute, "__module__", None)
    if isinstance(compute, partial):
        root_module = getattr(compute.func, "__module__", None)
    follow = set(PACKAGES)
    if root_module:
        follow.add(_top(root_module))
    walk = _Walk(follow)
    if isinstance(compute, (types.FunctionType, partial, types.MethodType)) or hasattr(compute, "__wrapped__"):
        walk.obj(compute)
    else:                                             # a callable object: its class
        walk.obj(type(compute))
    digest = hashlib.sha256()
    for unit in sorted(walk.units):
        digest.update(unit.encode() + b"\n")
    libraries = sorted(walk.libraries)
    for library in libraries:
        digest.update(b"library " + library.encode() + b"\n")
    items = {label: unit[:16] for label, unit in sorted(walk.items.items())}
    return {"digest": digest.hexdigest(), "units": sorted(walk.units.values()), "items": items,
            "libraries": libraries}
