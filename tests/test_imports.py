"""The package's import graph (grimp reads every import, those inside functions too): no cycle anywhere in bot/,
and the command line is a skin that no other module imports."""

import grimp
import networkx
import pytest


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
