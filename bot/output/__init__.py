"""What a run leaves for people to read: ``trace`` (the XML trace, valid against ``xslt/trace.xsd``, and the
ledger's per-statement records it is assembled from) and ``report`` (the trace rendered to HTML by
``xslt/report.xsl``)."""
