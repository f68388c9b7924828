"""Applications: the ``paohuzi`` command, terminal play, the browser table, replay pages."""
