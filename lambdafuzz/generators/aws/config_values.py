"""What a deployment configures its function with: Secrets Manager secrets and SSM
parameters, drawn for every test.

A value the deployment fixes (a template's `SecretString` or a parameter's `Value`) is
kept as it is; what it leaves to AWS or to whoever deploys it is drawn. A secret whose
key Secrets Manager generates (CloudFormation's `GenerateSecretString` with
`GenerateStringKey`) is the template's JSON object with that key set to a drawn
password; a wholly generated secret is a drawn password. A secret only the code names is
a drawn password or, as often, a JSON object of key/value pairs built from the field
names the code reads. A parameter without a fixed
value gets a drawn text (now and then a whole number: sizes and limits are what teams keep
there), or a drawn comma-separated list for a `StringList`.
"""

from __future__ import annotations

import json
import string
from typing import Final

from lambdafuzz.generators.core import Choices, generator
from lambdafuzz.generators.files.json_files import json_objects
from lambdafuzz.model.target import ParameterSpec, SecretSpec
from lambdafuzz.model.world import Parameter, Secret

#: What `GenerateSecretString` draws from by default: letters, digits and punctuation.
PASSWORD_ALPHABET: Final = string.ascii_letters + string.digits + string.punctuation
#: How often a secret nothing describes is a JSON object rather than one string.
JSON_SECRET_P: Final = 0.5
#: Secrets Manager's default generated length.
PASSWORD_LENGTH: Final = 32
#: A parameter's drawn text: what configuration values are made of (names, paths, URLs).
PARAMETER_ALPHABET: Final = string.ascii_letters + string.digits + "-_./:"
#: How often a drawn String parameter is a whole number.
NUMERIC_P: Final = 0.3


@generator(None)
def draw_secret(choices: Choices, spec: SecretSpec) -> Secret:
    """The secret's `SecretString`: fixed, a template with a generated key, or generated."""
    if spec.generate_key is None and spec.value is not None:
        return Secret(spec.name, spec.value)
    if not spec.described and choices.draw_boolean(JSON_SECRET_P, site="json?"):
        # a secret nothing describes (one only the code names): as often a JSON object of
        # key/value pairs (the console's default kind, and what `json.loads` after a
        # GetSecretValue expects), made of the field names the code reads
        fields = json_objects(choices, max_depth=1, site="pairs")
        return Secret(spec.name, json.dumps(fields))
    password = choices.draw_string(PASSWORD_ALPHABET, 1, PASSWORD_LENGTH, site="password")
    return Secret(spec.name, _secret_string(spec, password))


def _secret_string(spec: SecretSpec, generated: str) -> str:
    """The secret's string with `generated` as what Secrets Manager would generate."""
    if spec.generate_key is None:
        return spec.value if spec.value is not None else generated
    template = json.loads(spec.value) if spec.value is not None else {}
    template[spec.generate_key] = generated
    return json.dumps(template)


@generator(None)
def draw_parameter(choices: Choices, spec: ParameterSpec) -> Parameter:
    """The parameter's value: fixed, or drawn (a list of 1-4 drawn items for StringList)."""
    if spec.value is not None:
        return Parameter(spec.name, spec.value, spec.type)
    if spec.type == "StringList":
        count = choices.draw_integer(1, 4, site="items")
        items = [choices.draw_string(PARAMETER_ALPHABET, 1, 24, site="item") for _ in range(count)]
        return Parameter(spec.name, ",".join(items), spec.type)
    if choices.draw_boolean(NUMERIC_P, site="numeric?"):
        # sizes, timeouts and limits are the settings most often kept as parameters; 0 and
        # -1 are what breaks the code that divides or ranges by them
        value = str(choices.draw_integer(-1, 1000, site="number"))
    else:
        value = choices.draw_string(PARAMETER_ALPHABET, 1, 48, site="value")
    return Parameter(spec.name, value, spec.type)


#: What a drawn part of a secret or parameter holds before any test drew it.
PLACEHOLDER: Final = "lambdafuzz-placeholder"


def placeholder_secret(spec: SecretSpec) -> Secret:
    """The secret with `PLACEHOLDER` where a test would draw (for the handler's import)."""
    return Secret(spec.name, _secret_string(spec, PLACEHOLDER))


def placeholder_parameter(spec: ParameterSpec) -> Parameter:
    """The parameter with `PLACEHOLDER` as its value unless the deployment fixes one."""
    return Parameter(spec.name, spec.value if spec.value is not None else PLACEHOLDER, spec.type)
