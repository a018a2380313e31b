"""The docs site's generated pages (docs/reference/, written by `make generate`) say what the
code says: rendered again here, they equal the committed files, as infra/merge-template.json
equals its rendering. And every operation has its entry, every setting and limit of config.py
its row."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from chalicelib import config
from chalicelib.resources import load_all
from generate.reference import operations, pages

ROOT = Path(__file__).resolve().parents[2]
RUN = "run: make generate"


def test_the_reference_pages_match_the_code() -> None:
    wanted = pages.pages()
    committed = {path.name: path.read_text(encoding="utf-8") for path in pages.REFERENCE.glob("*.md")}
    assert sorted(committed) == sorted(wanted), RUN
    for name, text in wanted.items():
        assert committed[name] == text, f"docs/reference/{name} differs from the code; {RUN}"


def test_the_nav_lists_the_reference_pages() -> None:
    current = pages.MKDOCS.read_text(encoding="utf-8")
    assert pages.mkdocs_yml(current) == current, RUN


def test_every_operation_has_its_reference_entry() -> None:
    index = (pages.REFERENCE / "index.md").read_text(encoding="utf-8")
    for op in load_all().values():
        area = operations.area_of(op)
        page = (pages.REFERENCE / f"{area}.md").read_text(encoding="utf-8")
        assert f"\n## {op.name} {{ #{op.name} }}\n" in page, f"{op.name}: no section in reference/{area}.md"
        assert f"]({area}.md#{op.name})" in index, f"{op.name}: not linked from reference/index.md"


def test_an_operation_with_examples_shows_how_people_ask_for_it() -> None:
    page = (pages.REFERENCE / "contacts.md").read_text(encoding="utf-8")
    section = page.split("\n## contacts.create ", 1)[1].split("\n## ", 1)[0]
    assert "**Ask it like**" in section
    assert "\n- English: “" in section and "\n- Deutsch: “" in section


def test_every_error_code_has_its_row() -> None:
    from chalicelib import error_codes

    page = (pages.REFERENCE / "errors.md").read_text(encoding="utf-8")
    for code in error_codes.TABLE:
        assert f'<span id="{code}"></span>`{code}`' in page, code


def _numbers_of_config() -> set[str]:
    tree = ast.parse((ROOT / "chalicelib" / "config.py").read_text(encoding="utf-8"))
    found = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and type(getattr(config, name)) in (int, float):
                found.add(name)
    return found


def test_every_limit_of_config_is_named_with_its_meaning() -> None:
    assert set(config.LIMITS) == _numbers_of_config(), "name each number of config.py in config.LIMITS"


def test_config_reads_each_variable_through_its_declared_setting() -> None:
    """No `os.environ.get("PM_...")` beside the Setting declarations: a variable read with a name
    written out would miss the configuration page."""
    tree = ast.parse((ROOT / "chalicelib" / "config.py").read_text(encoding="utf-8"))
    literal_reads = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("get", "getenv")
        and node.args
        and isinstance(node.args[0], ast.Constant)
        and "environ" in ast.unparse(node.func)
    ]
    assert literal_reads == [], f"config.py lines {literal_reads}: declare the variable with _setting() and read it"


def test_the_settings_page_lists_every_setting() -> None:
    page = (pages.REFERENCE / "configuration.md").read_text(encoding="utf-8")
    for variable in config.SETTINGS:
        assert f"| `{variable}` |" in page, variable
