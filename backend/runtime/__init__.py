"""Running kernels: NVRTC compilation and nvdisasm (``nvrtc``), the cuda-python GPU runner
(``runner``), the same arguments on the CPU interpreter (``cpu_run``), and host-side numpy views
of element types (``host_data``)."""
