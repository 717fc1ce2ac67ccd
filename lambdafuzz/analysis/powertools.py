"""What a handler's AWS Lambda Powertools code admits, read from its source.

A handler decorated with `@event_parser(model=Order, envelope=envelopes.SqsEnvelope)`, or
calling `parse(event=..., model=Order)`, `@validator(inbound_schema=SCHEMA)`,
`validate(event=..., schema=SCHEMA, envelope=...)`, never runs its own code on a body the
model rejects; a resolver (`APIGatewayRestResolver`, ...) answers 404 to every path it has
no route for.  This finds those facts statically (`ast`; nothing is imported): which model
or schema, where it is defined (following imports through the application's modules,
aliases included), which envelope unwraps it, and the resolver's class and routes.  The
config layer turns them into the trigger's `body_model`, routes and outcome defaults.
Anything seen but not modelled (an envelope without a generator, a schema built at run
time, routers included from elsewhere) is listed in `PowertoolsUse.notes`.
"""

from __future__ import annotations

import ast
import enum
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lambdafuzz.model.target import Envelope, Route

#: Source files larger than this are not read (a handler module is ~10 KB).
MAX_SOURCE_BYTES = 2 * 1024 * 1024
#: How many `from x import y` re-exports are followed to find where a model is defined.
MAX_REEXPORTS = 5
_POWERTOOLS = "aws_lambda_powertools."
#: Parser envelope classes -> where their body sits in the event.
PARSER_ENVELOPES = {
    "SqsEnvelope": Envelope.SQS,
    "SnsEnvelope": Envelope.SNS,
    "SnsSqsEnvelope": Envelope.SNS_SQS,
    "EventBridgeEnvelope": Envelope.EVENTBRIDGE,
    "ApiGatewayEnvelope": Envelope.APIGATEWAY,
    "ApiGatewayV2Envelope": Envelope.APIGATEWAY_V2,
    "LambdaFunctionUrlEnvelope": Envelope.APIGATEWAY_V2,
    "KinesisDataStreamEnvelope": Envelope.KINESIS,
}
#: Validator envelopes (the constants of `validation.envelopes`, JMESPath as written).
VALIDATOR_ENVELOPES = {
    "API_GATEWAY_REST": Envelope.APIGATEWAY,
    "API_GATEWAY_HTTP": Envelope.APIGATEWAY_V2,
    "SQS": Envelope.SQS,
    "SNS": Envelope.SNS,
    "EVENTBRIDGE": Envelope.EVENTBRIDGE,
    "CLOUDWATCH_EVENTS_SCHEDULED": Envelope.EVENTBRIDGE,
    "KINESIS_DATA_STREAM": Envelope.KINESIS,
    "powertools_json(body)": Envelope.APIGATEWAY,
    "Records[*].powertools_json(body)": Envelope.SQS,
    "Records[0].Sns.Message | powertools_json(@)": Envelope.SNS,
    "detail": Envelope.EVENTBRIDGE,
    "Records[*].kinesis.powertools_json(powertools_base64(data))": Envelope.KINESIS,
}
#: Powertools event models a handler's model may extend, overriding the field that holds
#: its body (`class OrderEvent(EventBridgeModel): detail: Order`).
EVENT_MODEL_FIELDS = {
    "EventBridgeModel": ("detail", Envelope.EVENTBRIDGE),
    "APIGatewayProxyEventModel": ("body", Envelope.APIGATEWAY),
    "APIGatewayProxyEventV2Model": ("body", Envelope.APIGATEWAY_V2),
    "LambdaFunctionUrlModel": ("body", Envelope.APIGATEWAY_V2),
}
#: Resolver classes -> the payload their events have (None: no generator for it).
RESOLVERS = {
    "APIGatewayRestResolver": "apigateway",
    "APIGatewayHttpResolver": "apigateway-v2",
    "LambdaFunctionUrlResolver": "apigateway-v2",
    "ALBResolver": None,
    "VPCLatticeResolver": None,
    "VPCLatticeV2Resolver": None,
    "BedrockAgentResolver": None,
}
_ROUTE_METHODS = ("get", "post", "put", "delete", "patch", "head", "options")
_BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "ANY"})


class BodySource(enum.StrEnum):
    EVENT_PARSER = "event_parser"
    PARSE = "parse"
    VALIDATOR = "validator"
    VALIDATE = "validate"
    ROUTE = "route"  # a resolver route's typed body parameter (`enable_validation=True`)


@dataclass(frozen=True, slots=True)
class ModelRef:
    """Where a model class or schema value is defined: `module.name`."""

    module: str
    name: str

    @property
    def qualified(self) -> str:
        return f"{self.module}.{self.name}"


@dataclass(frozen=True, slots=True)
class ParsedBody:
    """One place the handler parses or validates its input."""

    source: BodySource
    model: ModelRef | None  # the model class (parser) or schema value (validator)
    envelope: Envelope | None  # None: the whole event (or no known envelope, see notes)
    envelope_name: str  # as written: "SqsEnvelope", "detail"; "" without an envelope
    schema_json: str | None  # a validator schema written as a literal, as JSON text
    location: str  # "orders/handler.py:12"
    in_handler: bool  # a decorator of the handler function, or a call inside it
    # the model extends a Powertools event model and overrides this field with the body
    # ("detail" of an EventBridgeModel): the body is that field's schema; "": the model's
    field: str = ""
    # it parses or validates the event the function received (a decorator of the handler;
    # `event=` the enclosing function's event parameter), with no envelope or field to
    # take a part of it: the schema's properties are the event's (`body`, `httpMethod`,
    # `Records`), not a request body's
    whole_event: bool = False


@dataclass(frozen=True, slots=True)
class ResolverRoute:
    method: str  # GET, POST, ...
    path: str  # "/orders/{order_id}" (Powertools writes "/orders/<order_id>")
    function: str  # the route function's name


@dataclass(frozen=True, slots=True)
class PowertoolsUse:
    bodies: tuple[ParsedBody, ...] = ()
    resolver: str | None = None  # the resolver class's name
    routes: tuple[ResolverRoute, ...] = ()
    notes: tuple[str, ...] = ()  # seen but not modelled

    @property
    def found(self) -> bool:
        return bool(self.bodies or self.resolver)

    @property
    def uses_parser(self) -> bool:
        return any(b.source in (BodySource.EVENT_PARSER, BodySource.PARSE) for b in self.bodies)

    @property
    def uses_validator(self) -> bool:
        return any(b.source in (BodySource.VALIDATOR, BodySource.VALIDATE) for b in self.bodies)

    @property
    def primary(self) -> ParsedBody | None:
        """The body that decides what the handler accepts: the handler's own decorator or
        call first, then the handler module's, then the imported modules' (in order)."""
        ranked = sorted(self.bodies, key=lambda b: not b.in_handler)
        return ranked[0] if ranked else None

    @property
    def resolver_kind(self) -> str | None:
        return RESOLVERS.get(self.resolver or "")

    def target_routes(self) -> tuple[Route, ...]:
        return tuple(dict.fromkeys(Route(r.method, r.path) for r in self.routes))


# =========================================================================== modules
@dataclass(slots=True)
class _Module:
    name: str
    path: Path
    tree: ast.Module
    imports: dict[str, str]  # local name -> qualified name
    defined: dict[str, ast.stmt]  # top-level classes, functions and assignments


def _read_module(root: Path, name: str) -> _Module | None:
    base = root.joinpath(*name.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if not path.is_file():
            continue
        try:
            if path.stat().st_size > MAX_SOURCE_BYTES:
                return None
            tree = ast.parse(path.read_bytes(), str(path))
        except (OSError, SyntaxError, ValueError):
            return None
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        imports, defined = _top_level(tree, package)
        return _Module(name, path, tree, imports, defined)
    return None


def _top_level(tree: ast.Module, package: str) -> tuple[dict[str, str], dict[str, ast.stmt]]:
    imports: dict[str, str] = {}
    defined: dict[str, ast.stmt] = {}
    for node in _module_statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    imports[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                if alias.name != "*":
                    imports[alias.asname or alias.name] = (
                        f"{base}.{alias.name}" if base else alias.name
                    )
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            defined[node.name] = node
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    defined[target.id] = node
    return imports, defined


def _module_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Top-level statements, including those under `if`/`try` (guarded imports)."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try):
            for block in (
                node.body,
                node.orelse,
                getattr(node, "handlers", []),
                getattr(node, "finalbody", []),
            ):
                for item in block:
                    if isinstance(item, ast.ExceptHandler):
                        yield from _module_statements(item.body)
                    else:
                        yield from _module_statements([item])


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".") if package else []
    parts = parts[: len(parts) - (node.level - 1)] if node.level > 1 else parts
    return ".".join([*parts, *([node.module] if node.module else [])])


def _qualify(module: _Module, expr: ast.expr) -> str | None:
    """The dotted name an expression refers to, through the module's imports."""
    if isinstance(expr, ast.Name):
        if expr.id in module.imports:
            return module.imports[expr.id]
        if expr.id in module.defined:
            return f"{module.name}.{expr.id}"
        return None
    if isinstance(expr, ast.Attribute):
        base = _qualify(module, expr.value)
        return f"{base}.{expr.attr}" if base else None
    return None


def _powertools_name(module: _Module, expr: ast.expr) -> str | None:
    """The last part of a Powertools name (`event_parser`, `SqsEnvelope`), else None."""
    qualified = _qualify(module, expr)
    if qualified and qualified.startswith(_POWERTOOLS):
        return qualified.rsplit(".", 1)[-1]
    return None


# =========================================================================== analysis
class _Analysis:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.cache: dict[str, _Module | None] = {}
        self.notes: list[str] = []

    def module(self, name: str) -> _Module | None:
        if name not in self.cache:
            self.cache[name] = _read_module(self.root, name)
        return self.cache[name]

    def where(self, module: _Module, node: ast.AST) -> str:
        try:
            rel = module.path.relative_to(self.root).as_posix()
        except ValueError:
            rel = module.path.name
        return f"{rel}:{getattr(node, 'lineno', 0)}"

    def app_module_of(self, qualified: str) -> tuple[_Module, str] | None:
        """(module, attribute) for `pkg.mod.Name` when `pkg.mod` is an application module."""
        for _ in range(MAX_REEXPORTS):
            module_name, _, attribute = qualified.rpartition(".")
            module = self.module(module_name) if module_name else None
            if module is None:
                return None
            if attribute in module.defined:
                return module, attribute
            if attribute not in module.imports:
                return None
            qualified = module.imports[attribute]  # a re-export: follow it
        return None

    def model_ref(self, module: _Module, expr: ast.expr | None) -> ModelRef | None:
        if expr is None:
            return None
        if isinstance(expr, ast.Subscript):  # list[Order], Optional[...]: the outer name only
            self.notes.append(f"{self.where(module, expr)}: a generic model type is not modelled")
            return None
        qualified = _qualify(module, expr)
        if qualified is None:
            return None
        found = self.app_module_of(qualified)
        if found is None:
            return None
        owner, attribute = found
        return ModelRef(owner.name, attribute)

    def literal_schema(self, ref: ModelRef | None) -> str | None:
        """A validator schema written as a literal dict, as JSON text; None otherwise."""
        if ref is None:
            return None
        module = self.module(ref.module)
        node = module.defined.get(ref.name) if module else None
        value = getattr(node, "value", None)
        if not isinstance(node, ast.Assign | ast.AnnAssign) or value is None:
            return None
        try:
            schema = ast.literal_eval(value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
        return json.dumps(schema, sort_keys=True) if isinstance(schema, dict) else None

    # ------------------------------------------------------------------ parse/validate
    def bodies(self, module: _Module, handler: str | None) -> list[ParsedBody]:
        found: list[ParsedBody] = []
        handler_node = module.defined.get(handler) if handler else None
        inside = set()
        # each call's innermost enclosing function's first parameter (its event):
        # `ast.walk` is breadth first, so inner functions overwrite outer ones
        event_params: dict[int, str] = {}
        for function in ast.walk(module.tree):
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and function.args.args:
                first = function.args.args[0].arg
                event_params.update((id(n), first) for n in ast.walk(function))
        if isinstance(handler_node, ast.FunctionDef | ast.AsyncFunctionDef):
            inside = {id(n) for n in ast.walk(handler_node)}
            for decorator in handler_node.decorator_list:
                body = self.decorator_body(module, decorator, handler_node)
                if body is not None:
                    found.append(body)
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Call):
                body = self.call_body(
                    module, node, in_handler=id(node) in inside, event=event_params.get(id(node))
                )
                if body is not None:
                    found.append(body)
        return found

    def decorator_body(
        self, module: _Module, decorator: ast.expr, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> ParsedBody | None:
        call = decorator if isinstance(decorator, ast.Call) else None
        name = _powertools_name(module, call.func if call else decorator)
        keywords = {k.arg: k.value for k in call.keywords if k.arg} if call else {}
        if name == "event_parser":
            model_expr = keywords.get("model")
            if model_expr is None and function.args.args:  # the event parameter's annotation
                model_expr = function.args.args[0].annotation
            return self.parsed(
                module, BodySource.EVENT_PARSER, model_expr, keywords, decorator, True, whole=True
            )
        if name == "validator":
            return self.parsed(
                module,
                BodySource.VALIDATOR,
                keywords.get("inbound_schema"),
                keywords,
                decorator,
                True,
                whole=True,
            )
        return None

    def call_body(
        self, module: _Module, call: ast.Call, *, in_handler: bool, event: str | None = None
    ) -> ParsedBody | None:
        """A `parse` / `validate` call; `event`: the enclosing function's event parameter
        (the call checks the whole event when it is handed that, unchanged)."""
        name = _powertools_name(module, call.func)
        if name not in ("parse", "validate"):
            return None
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        positional = ("event", "model" if name == "parse" else "schema", "envelope")
        for key, value in zip(positional, call.args, strict=False):
            keywords.setdefault(key, value)
        given = keywords.get("event")
        whole = event is not None and isinstance(given, ast.Name) and given.id == event
        if name == "parse":
            return self.parsed(
                module,
                BodySource.PARSE,
                keywords.get("model"),
                keywords,
                call,
                in_handler,
                whole=whole,
            )
        return self.parsed(
            module,
            BodySource.VALIDATE,
            keywords.get("schema"),
            keywords,
            call,
            in_handler,
            whole=whole,
        )

    def parsed(
        self,
        module: _Module,
        source: BodySource,
        model_expr: ast.expr | None,
        keywords: dict[str, ast.expr],
        node: ast.AST,
        in_handler: bool,
        *,
        whole: bool = False,
    ) -> ParsedBody:
        """`whole`: what is parsed is the event itself (see `ParsedBody.whole_event`)."""
        where = self.where(module, node)
        ref = self.model_ref(module, model_expr)
        qualified = _qualify(module, model_expr) if model_expr is not None else None
        if ref is None and model_expr is not None and not (qualified or "").startswith(_POWERTOOLS):
            self.notes.append(
                f"{where}: {source} of {ast.unparse(model_expr)}, not found in the app"
            )
        envelope, written = self.envelope(module, keywords.get("envelope"), source, where)
        field = ""
        if envelope is None and not written and ref is not None:
            field, envelope = self.event_model_field(ref)
        schema_json = None
        if source in (BodySource.VALIDATOR, BodySource.VALIDATE):
            schema_json = self.literal_schema(ref)
            if schema_json is None and isinstance(model_expr, ast.Dict):
                try:
                    schema_json = json.dumps(ast.literal_eval(model_expr), sort_keys=True)
                except (ValueError, TypeError, SyntaxError):
                    schema_json = None
        whole_event = whole and envelope is None and not written and not field
        return ParsedBody(
            source, ref, envelope, written, schema_json, where, in_handler, field, whole_event
        )

    def event_model_field(self, ref: ModelRef) -> tuple[str, Envelope | None]:
        """("detail", EVENTBRIDGE) when `ref` is a class extending a Powertools event model
        (its direct base) and declaring that field; ("", None) otherwise."""
        module = self.module(ref.module)
        node = module.defined.get(ref.name) if module else None
        if module is None or not isinstance(node, ast.ClassDef):
            return "", None
        declared = {
            item.target.id
            for item in node.body
            if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
        }
        for base in node.bases:
            name = _powertools_name(module, base)
            if name in EVENT_MODEL_FIELDS and EVENT_MODEL_FIELDS[name][0] in declared:
                return EVENT_MODEL_FIELDS[name]
        return "", None

    def envelope(
        self, module: _Module, expr: ast.expr | None, source: BodySource, where: str
    ) -> tuple[Envelope | None, str]:
        if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
            return None, ""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            written = expr.value
        else:
            written = _powertools_name(module, expr) or ast.unparse(expr)
        table = (
            PARSER_ENVELOPES
            if source in (BodySource.PARSE, BodySource.EVENT_PARSER)
            else VALIDATOR_ENVELOPES
        )
        envelope = table.get(written)
        if envelope is None:
            self.notes.append(
                f"{where}: envelope {written} has no generator; its bodies are not modelled"
            )
        return envelope, written

    # ------------------------------------------------------------------ resolvers
    def resolver(self, module: _Module) -> tuple[str | None, list[ResolverRoute], list[ParsedBody]]:
        """The resolver instantiated in `module`, its routes (its own decorators', and
        those of the `Router`s it includes, with their prefix) and, with
        `enable_validation=True`, the models its route functions take as their body."""
        instances: dict[str, str] = {}
        validation = False
        for name, call in self.instances(module):
            cls = _powertools_name(module, call.func)
            if cls in RESOLVERS:
                instances[name] = cls
                validation |= any(
                    k.arg == "enable_validation"
                    and isinstance(k.value, ast.Constant)
                    and k.value.value is True
                    for k in call.keywords
                )
        resolver = next(iter(instances.values()), None)
        if resolver is None:
            return None, [], []
        if RESOLVERS[resolver] is None:
            self.notes.append(f"{module.name}: {resolver} events have no generator")
        routes, bodies = self.module_routes(module, set(instances), "", validation)
        for node in ast.walk(module.tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "include_router"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in instances
            ):
                found = self.included(module, node, validation)
                routes.extend(found[0])
                bodies.extend(found[1])
        return resolver, routes, bodies

    @staticmethod
    def instances(module: _Module) -> Iterator[tuple[str, ast.Call]]:
        for name, node in module.defined.items():
            value = getattr(node, "value", None)
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(value, ast.Call):
                yield name, value

    def included(
        self, module: _Module, call: ast.Call, validation: bool
    ) -> tuple[list[ResolverRoute], list[ParsedBody]]:
        """The routes of `app.include_router(router, prefix="/x")`: a `Router` of this
        module or of an application module it imports."""
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        router = call.args[0] if call.args else keywords.get("router")
        prefix = call.args[1] if len(call.args) > 1 else keywords.get("prefix")
        text = prefix.value if isinstance(prefix, ast.Constant) else ""
        if not isinstance(text, str) or (
            prefix is not None and not isinstance(prefix, ast.Constant)
        ):
            self.notes.append(f"{self.where(module, call)}: a router prefix built at run time")
            return [], []
        owner: tuple[_Module, str] | None = None
        if isinstance(router, ast.Name) and router.id in module.defined:
            owner = module, router.id
        elif router is not None:
            qualified = _qualify(module, router)
            owner = self.app_module_of(qualified) if qualified else None
        if owner is None:
            shown = ast.unparse(router) if router is not None else "?"
            self.notes.append(f"{self.where(module, call)}: router {shown} not found in the app")
            return [], []
        other, name = owner
        if not any(
            n == name and _powertools_name(other, c.func) == "Router"
            for n, c in self.instances(other)
        ):
            return [], []
        return self.module_routes(other, {name}, text.rstrip("/"), validation)

    def module_routes(
        self, module: _Module, owners: set[str], prefix: str, validation: bool
    ) -> tuple[list[ResolverRoute], list[ParsedBody]]:
        routes: list[ResolverRoute] = []
        bodies: list[ParsedBody] = []
        for node in ast.walk(module.tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in node.decorator_list:
                found = self.routes(module, decorator, owners, node.name, prefix)
                routes.extend(found)
                if validation and any(r.method in _BODY_METHODS for r in found):
                    bodies.extend(self.typed_bodies(module, node, found))
        return routes, bodies

    def typed_bodies(
        self,
        module: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        routes: list[ResolverRoute],
    ) -> Iterator[ParsedBody]:
        """Parameters annotated with an application model: with `enable_validation`, the
        resolver validates the request body against it (answering 422 otherwise)."""
        path_names = {part[1:-1] for r in routes for part in r.path.split("/") if part[:1] == "{"}
        for arg in function.args.args:
            annotation = arg.annotation
            if annotation is None or arg.arg in path_names:
                continue
            if isinstance(annotation, ast.Subscript) and (
                (_qualify(module, annotation.value) or "").endswith("Annotated")
            ):
                inner = annotation.slice
                annotation = inner.elts[0] if isinstance(inner, ast.Tuple) else inner
            if isinstance(annotation, ast.Subscript):
                continue
            ref = self.model_ref(module, annotation)
            owner = self.module(ref.module) if ref else None
            if ref and owner and isinstance(owner.defined.get(ref.name), ast.ClassDef):
                yield ParsedBody(
                    BodySource.ROUTE, ref, None, "", None, self.where(module, function), False
                )

    def routes(
        self,
        module: _Module,
        decorator: ast.expr,
        owners: set[str],
        function: str,
        prefix: str = "",
    ) -> list[ResolverRoute]:
        if not (isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)):
            return []
        owner = decorator.func.value
        verb = decorator.func.attr
        if not (isinstance(owner, ast.Name) and owner.id in owners):
            return []
        if verb not in (*_ROUTE_METHODS, "route"):
            return []
        keywords = {k.arg: k.value for k in decorator.keywords if k.arg}
        rule = decorator.args[0] if decorator.args else keywords.get("rule")
        if not (isinstance(rule, ast.Constant) and isinstance(rule.value, str)):
            self.notes.append(f"{self.where(module, decorator)}: a route path built at run time")
            return []
        methods = [verb.upper()]
        if verb == "route":
            given = decorator.args[1] if len(decorator.args) > 1 else keywords.get("method")
            try:
                value = ast.literal_eval(given) if given is not None else "GET"
            except (ValueError, TypeError, SyntaxError):
                value = "ANY"
            methods = [value] if isinstance(value, str) else [str(v) for v in value]
        path = _route_path(prefix + rule.value if rule.value != "/" or not prefix else prefix)
        return [ResolverRoute(m.upper(), path, function) for m in methods]


def _route_path(rule: str) -> str:
    """Powertools' `/orders/<order_id>` as a resource template: `/orders/{order_id}`."""
    out, i = [], 0
    while i < len(rule):
        if rule[i] == "<" and ">" in rule[i:]:
            end = rule.index(">", i)
            out.append("{" + rule[i + 1 : end] + "}")
            i = end + 1
        else:
            out.append(rule[i])
            i += 1
    path = "".join(out)
    return path if path.startswith("/") else "/" + path


def analyze_powertools(root: Path, module: str, function: str | None = None) -> PowertoolsUse:
    """The Powertools facts of handler `module.function` below `root`: its own module
    first, then the application modules it imports (one level: where models and shared
    parsing helpers usually live)."""
    analysis = _Analysis(root)
    main = analysis.module(module)
    if main is None:
        return PowertoolsUse()
    bodies = analysis.bodies(main, function)
    resolver, routes, route_bodies = analysis.resolver(main)
    bodies.extend(route_bodies)
    for imported in dict.fromkeys(main.imports.values()):
        name = imported if analysis.module(imported) else imported.rpartition(".")[0]
        other = analysis.module(name) if name and name != module else None
        if other is not None:
            bodies.extend(b for b in analysis.bodies(other, None) if b not in bodies)
    return PowertoolsUse(
        tuple(dict.fromkeys(bodies)),
        resolver,
        tuple(dict.fromkeys(routes)),
        tuple(dict.fromkeys(analysis.notes)),
    )
