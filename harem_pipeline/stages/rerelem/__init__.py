"""ReRelEM, the Second HAREM's evaluation of relations between named entities.

The chain of docs/spec/rerelem.md, one pure module per concern (the Java
``HashMap``/``HashSet`` iteration order the official outputs follow is
:class:`harem_pipeline.text.java.JavaHashMap`):

* :mod:`.relations` — relation types (``R:`` lines of ``harem.conf``),
  relations, the transitive rules and the expansion of a graph;
* :mod:`.entities` — an entity's relation attributes read into graph
  nodes and written back, records as the Java prints them;
* :mod:`.chain` — expander, selector, ID normaliser, triples (records in,
  records or triples out);
* :mod:`.scoring` — relation veils, the evaluator and the summary;
* :mod:`.convert` — the t2→t1 notation of collections and runs.
"""
