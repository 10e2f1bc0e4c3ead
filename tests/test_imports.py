"""The package's import graph (grimp reads every import, those inside functions too): no cycle anywhere in bot/,
and the command line is a skin that no other module imports."""

import ast

import grimp
import networkx
import pytest

from conftest import ROOT


def import_cycles(package: str) -> list[list[str]]:
    """Each group of modules that import one another in a circle, the shortest circle through it first."""
    imports = grimp.build_graph(package, cache_dir=None)
    graph = networkx.DiGraph()
    for module in imports.modules:
        graph.add_node(module)
        for imported in imports.find_modules_directly_imported_by(module):
            graph.add_edge(module, imported)
    groups = [group for group in networkx.strongly_connected_components(graph) if len(group) > 1]
    return [[edge[0] for edge in networkx.find_cycle(graph.subgraph(group))] for group in groups]


def test_no_module_of_bot_is_imported_back_by_what_it_imports():
    cycles = import_cycles("bot")
    assert not cycles, "import cycles: " + "; ".join(" → ".join([*cycle, cycle[0]]) for cycle in cycles)


def test_the_cycle_check_finds_a_cycle_through_a_function_level_import(tmp_path, monkeypatch):
    package = tmp_path / "circular"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from circular.b import helper\n")
    (package / "b.py").write_text("def helper():\n    from circular import c\n")
    (package / "c.py").write_text("import circular.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert [sorted(cycle) for cycle in import_cycles("circular")] == [["circular.a", "circular.b", "circular.c"]]


@pytest.mark.parametrize("package", ["bot.cli"])
def test_nothing_outside_the_command_line_imports_it(package):
    imports = grimp.build_graph("bot", cache_dir=None)
    modules = {package} | imports.find_descendants(package)
    importers = {importer for module in modules for importer in imports.find_modules_that_directly_import(module)}
    assert sorted(importer for importer in importers if importer not in modules) == []


# -- the layers --------------------------------------------------------------------------------------------------

LIBRARY = [path for path in (ROOT / "bot").rglob("*.py") if "cli" not in path.relative_to(ROOT / "bot").parts]
# Who may import each step's module: the step's own package, the command line, and the parts named here.
OWNERS = {
    "bot.review": ("bot.review", "bot.cli", "bot.doctor", "bot.wiring"),  # the doctor tries every step
    "bot.doctor": ("bot.cli",),
    "bot.output.report": ("bot.output", "bot.review", "bot.doctor", "bot.cli"),
}
# Imports inside functions (lazy imports): only where a heavy optional dependency (torch, transformers, xllamacpp,
# selenium, flask, pywikibot, a PDF reader) or an install check needs them. Lower this when you remove one.
MOST_IMPORTS_IN_FUNCTIONS = 113


def _tree(path):
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@pytest.mark.parametrize("path", LIBRARY, ids=lambda path: str(path.relative_to(ROOT)))
def test_argparse_tqdm_and_print_belong_to_the_command_line(path):
    found = []
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            found.append(f"print at line {node.lineno}")
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        found += [f"import {name} at line {node.lineno}" for name in names
                  if name.split(".")[0] in ("argparse", "tqdm") or name.startswith("bot.cli")]
    assert not found, f"{path.relative_to(ROOT)}: the library reports through callbacks and results: {found}"


@pytest.mark.parametrize("step", sorted(OWNERS))
def test_only_the_owners_of_a_step_import_it(step):
    imports = grimp.build_graph("bot", cache_dir=None)
    modules = {step} | (imports.find_descendants(step) if imports.find_children(step) else set())
    importers = {importer for module in modules for importer in imports.find_modules_that_directly_import(module)}
    strangers = sorted(importer for importer in importers - modules
                       if not any(importer == owner or importer.startswith(owner + ".") for owner in OWNERS[step]))
    assert strangers == [], f"{step} is imported by {strangers}"


def test_a_run_imports_neither_review_doctor_trace_nor_report():
    imports = grimp.build_graph("bot", cache_dir=None)
    imported = imports.find_modules_directly_imported_by("bot.check_run")
    assert not [module for module in imported if module.startswith(("bot.review", "bot.doctor", "bot.output"))]


def test_the_clients_are_built_in_the_composition_root_only():
    factories = ("make_endpoint", "make_backend", "make_judge", "make_embedder", "make_profiles", "make_corroborator",
                 "make_services", "make_wayback", "make_search")
    callers = {str(path.relative_to(ROOT)) for path in (ROOT / "bot").rglob("*.py") for node in ast.walk(_tree(path))
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in factories}
    assert callers == {"bot/wiring.py"}


def imports_in_functions(root) -> int:
    return sum(isinstance(inner, (ast.Import, ast.ImportFrom))
               for path in root.rglob("*.py") for node in ast.walk(_tree(path))
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) for inner in ast.walk(node))


def test_imports_inside_functions_keep_falling():
    count = imports_in_functions(ROOT / "bot")
    assert count <= MOST_IMPORTS_IN_FUNCTIONS, f"{count} imports inside functions (at most {MOST_IMPORTS_IN_FUNCTIONS})"
