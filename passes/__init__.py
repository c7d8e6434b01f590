"""regcopy's passes: ``lower-reg-copy`` (the register-copy dispatch)."""
