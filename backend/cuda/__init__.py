"""The CUDA target: the printer (``printer.print_cuda``, ``-t cuda``), its frames and op
printers (``function``, ``arith``, ``matrix``), C names and types (``names``, ``types``,
``literals``), the facts about a kernel that the printer and the runner share
(``kernel_info``, ``shared_memory``), and the compiled targets ``-t ptx`` / ``-t sass``
(``targets``)."""
