"""The kernel manager papermill uses for precmp's reports: IPC sockets where the platform has
them, so a headless run neither opens TCP ports nor prints the kernel's plain-TCP warning."""

from __future__ import annotations

import os
from typing import Any

from jupyter_client.manager import AsyncKernelManager

__all__ = ["KERNEL_MANAGER", "LocalKernelManager"]


class LocalKernelManager(AsyncKernelManager):
    """An ``AsyncKernelManager`` that talks to its kernel over Unix sockets (IPC) on POSIX."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if os.name == "posix":
            self.transport = "ipc"


#: Import path to pass as papermill's ``kernel_manager_class``.
KERNEL_MANAGER = f"{__name__}.LocalKernelManager"
