// Placeholder: this module's first types land with issue 2's scaffolding.
