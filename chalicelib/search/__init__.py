"""Search for agents: the bilingual property-management thesaurus (data in thesaurus/*.json);
tool and docs search come with the MCP server."""
