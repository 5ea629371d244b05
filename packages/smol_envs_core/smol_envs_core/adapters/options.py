"""One typed declaration of an environment's options, read by both of its adapters.

An environment declares its options once, as a subclass of `EnvOptions` (a pydantic model: name,
type, default and a docstring per field, the allowed values and their error message in `check`).
The classic `load_environment(**kwargs)` is generated from it (`classic_loader`) and the v1
taskset's config subclasses it (`class XTasksetConfig(XOptions, vf.TasksetConfig)`), so both
accept the same names with the same defaults and refuse the same mistakes with the same line:

- an unknown name: `UnknownArgumentError` (a TypeError), naming every valid option;
- a value of the wrong type: `OptionTypeError` (a TypeError);
- a value out of range: the environment's own `ConfigError` (a ValueError), raised by `check`.

The first two are raised while the model validates (pydantic lets a non-ValueError through
unchanged); `check` runs when the environment is built (classic `load_environment`, v1
`Taskset.load`), because pydantic would wrap a ValueError raised while validating into its own
multi-line error.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Collection, Mapping
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator
from pydantic.fields import FieldInfo

from ..errors import SmolEnvsError, UnknownArgumentError, install_excepthook

OptionsT = TypeVar("OptionsT", bound="EnvOptions")


class OptionTypeError(SmolEnvsError, TypeError):
    """An option's value has the wrong type (`str(error)` is the one line users see)."""


class EnvOptions(BaseModel):
    """Base of an environment's option declaration (subclass it once per environment).

    Class attributes:
        env_id: the environment's id, which starts every error message.
        error: the environment's ConfigError (a ValueError) that `check` raises.
        classic_only: option -> why the v1 taskset cannot honour it; both APIs accept the name,
            and the v1 taskset refuses a value other than the default, saying why.
    Subclasses declare each option as a field with a default and a docstring (its description in
    the README table) and override `check_values` for allowed values.
    """

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)

    env_id: ClassVar[str] = "environment"
    error: ClassVar[type[Exception]] = ValueError
    classic_only: ClassVar[dict[str, str]] = {}

    @classmethod
    def option_fields(cls) -> dict[str, FieldInfo]:
        """The declared options (name -> pydantic field), in declaration order: the fields
        declared by a pure declaration class (an EnvOptions subclass with no other model base),
        so a v1 config's own fields (verifiers' `id`, `task`, ...) are left out unless the
        environment declares an option of that name itself."""
        def pure(klass: type) -> bool:
            return issubclass(klass, EnvOptions) and all(
                base is BaseModel or issubclass(base, EnvOptions)
                or not issubclass(base, BaseModel) for base in klass.__mro__)

        declared = {name for klass in cls.__mro__ if isinstance(klass, type) and pure(klass)
                    for name in vars(klass).get("__annotations__", {})}
        return {name: field for name, field in cls.model_fields.items() if name in declared}

    @classmethod
    def option_names(cls) -> list[str]:
        """The declared option names, in declaration order."""
        return list(cls.option_fields())

    @classmethod
    def valid_names(cls) -> list[str]:
        """The names an unknown-option error lists: `option_names`, or every option of the
        environment where its v1 options are split between taskset and task (override)."""
        return cls.option_names()

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """Option name -> default value."""
        return {name: field.get_default(call_default_factory=True)
                for name, field in cls.option_fields().items()}

    @model_validator(mode="wrap")
    @classmethod
    def _one_line_errors(cls, data: Any, handler: Callable[[Any], Any]) -> Any:
        try:
            return handler(data)
        except ValidationError as error:
            raise cls._one_line(error) from None

    @classmethod
    def _one_line(cls, error: ValidationError) -> SmolEnvsError:
        problems = error.errors()
        unknown = sorted(str(p["loc"][0]) for p in problems if p["type"] == "extra_forbidden")
        if unknown:
            return UnknownArgumentError(f"{cls.env_id}: unknown argument(s) {', '.join(unknown)}"
                                        f"; valid: {', '.join(cls.valid_names())}")
        first = problems[0]
        name = ".".join(str(part) for part in first["loc"]) or "options"
        message = first["msg"].removeprefix("Value error, ")
        return OptionTypeError(f"{cls.env_id}: {name}: {message[:1].lower()}{message[1:]}, "
                               f"got {first.get('input')!r}")

    def check(self, surface: str) -> None:
        """Refuse values out of range (`check_values`), then what `surface` ("classic" or "v1")
        cannot honour.

        Raises:
            the environment's `error` (a ValueError), one line starting with its id.
        """
        self.check_values()
        if surface == "v1":
            defaults = self.defaults()
            for name, why in self.classic_only.items():
                if getattr(self, name) != defaults[name]:
                    self.refuse(f"{name} applies to the classic environment only: {why}")

    def check_values(self) -> None:
        """Refuse values out of range with `refuse` (override; the base accepts everything)."""

    def refuse(self, message: str) -> None:
        """Raise the environment's `error` with "<env_id>: <message>"."""
        raise self.error(f"{self.env_id}: {message}")

    def choice(self, name: str, valid: Collection[Any]) -> None:
        """Refuse option `name` unless its value is in `valid` ("unknown <name> <value>;
        valid: a, b")."""
        value = getattr(self, name)
        if value not in valid:
            self.refuse(f"unknown {name} {value!r}; valid: {', '.join(map(str, valid))}")

    @classmethod
    def from_kwargs(cls: type[OptionsT], kwargs: Mapping[str, Any]) -> OptionsT:
        """Validate the classic keyword arguments into options and `check` them.

        Raises:
            UnknownArgumentError, OptionTypeError (TypeErrors) or the environment's `error`.
        """
        options = cls.model_validate(dict(kwargs))
        options.check("classic")
        return options

    def declared(self) -> dict[str, Any]:
        """The declared options' values (a v1 config's own fields left out)."""
        return {name: getattr(self, name) for name in self.option_names()}


def classic_signature(options: type[EnvOptions]) -> inspect.Signature:
    """The signature `load_environment` shows: one keyword per option, with its default and
    type, then `**kwargs` (unknown names are refused by the options model, never ignored)."""
    fields = options.option_fields()
    params = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                default=options.defaults()[name], annotation=field.annotation)
              for name, field in fields.items()]
    params.append(inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD))
    return inspect.Signature(params)


def classic_loader(options: type[OptionsT], build: Callable[[OptionsT], Any],
                   doc: str) -> Callable[..., Any]:
    """The classic `load_environment(**kwargs)` of an environment: validates the keyword
    arguments into `options` (`EnvOptions.from_kwargs`) and returns `build(options)`.

    The function's signature lists the options (`classic_signature`) and its docstring is `doc`
    followed by one line per option (name, default, description). Errors reach a user of
    vf-eval as one line (`install_excepthook`).
    """
    def load_environment(**kwargs: Any) -> Any:
        install_excepthook()  # an error below reaches the user as one line
        return build(options.from_kwargs(kwargs))

    fields = options.option_fields()
    lines = [f"    {name} (default {options.defaults()[name]!r}): {field.description or ''}"
             for name, field in fields.items()]
    load_environment.__doc__ = doc.rstrip() + "\n\nOptions:\n" + "\n".join(lines) + "\n"
    load_environment.__signature__ = classic_signature(options)  # type: ignore[attr-defined]
    return load_environment


def _type_name(annotation: Any) -> str:
    text = getattr(annotation, "__name__", None) or str(annotation).replace("typing.", "")
    return text.replace(" | ", " or ").replace("NoneType", "null").replace("None", "null")


def _shown(value: Any) -> str:
    return "null" if value is None else json.dumps(value)


def options_table(options: type[EnvOptions]) -> str:
    """The README's options table (Markdown: Arg, Type, Default, Description, one row per
    option in declaration order; the description is the field's docstring on one line)."""
    rows = ["| Arg | Type | Default | Description |", "| --- | --- | --- | --- |"]
    defaults = options.defaults()
    for name, field in options.option_fields().items():
        text = " ".join((field.description or "").split())
        rows.append(f"| `{name}` | {_type_name(field.annotation)} | `{_shown(defaults[name])}` "
                    f"| {text} |")
    return "\n".join(rows) + "\n"
