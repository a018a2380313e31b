"""The console's pages, one module per area; each declares its routes with console.web.page."""
