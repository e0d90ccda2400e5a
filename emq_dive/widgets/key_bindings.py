"""The Textual bindings the keys table declares, for the node that binds them."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from ..keymap import Where, keys_of


def bindings(where: Where) -> list[BindingType]:
    """One Binding per key ``where`` binds, with the table's footer words, display and priority."""
    return [Binding(name, action, key.description, show=key.footer, priority=key.priority,
                    key_display=key.display if len(key.keys) == 1 else None)
            for key in keys_of(where) for name, action in key.actions()]
