"""Pictures of a hand: the text renderer and the SVG table."""
