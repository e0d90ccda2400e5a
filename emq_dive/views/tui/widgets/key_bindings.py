"""The Textual bindings the keys table declares, for the node that binds them."""

from __future__ import annotations

from textual.binding import Binding, BindingType

from ....present.keymap import KEYMAP, Key, Where, keys_of


def bound_by(where: Where) -> tuple[Key, ...]:
    """The keys ``where`` binds: its own, and for the dive the pane keys it runs on the lesson while no pane has
    the focus."""
    if where is Where.DIVE:
        return (*keys_of(where), *(key for key in KEYMAP if key.where is Where.PANE and key.unfocused))
    return keys_of(where)


def bindings(where: Where) -> list[BindingType]:
    """One Binding per key ``where`` binds, with the table's footer words, display and priority."""
    return [Binding(name, action, key.description, show=key.footer, priority=key.priority,
                    key_display=key.display if len(key.keys) == 1 else None)
            for key in bound_by(where) for name, action in key.actions()]


def app_keys(*actions: str) -> list[BindingType]:
    """The app's bindings for ``actions``, for a modal screen to bind too (a modal screen hides the app's own)."""
    return [Binding(name, f"app.{action}", key.description, show=False)
            for key in keys_of(Where.APP) if key.action in actions for name, action in key.actions()]
