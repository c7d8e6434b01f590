"""regcopy's IR: the layout algebra (``layout``, pure Python) and the ``regcopy`` dialect."""
