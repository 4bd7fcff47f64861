"""The graph explorer: one front end (kgkit/views/explorer.js) for the standalone page and the notebook widget.

- `palette`: colour-blind-safe colours per type;
- `layout`: a seeded layout that keeps communities apart (computed in Python, no physics in the browser);
- `payload`: a Graph as the explorer's JSON; `overlay`: two graphs in one (added / removed / kept), the merge preview;
- `page`: the offline HTML page and the widget's ES module.
"""

from kgkit.views.explorer.overlay import DIFF_COLOURS, merge_preview_payload, overlay_payload
from kgkit.views.explorer.page import explorer_esm, explorer_html, explorer_page, payload_json
from kgkit.views.explorer.palette import PALETTE, PINNED, type_colour, type_colours
from kgkit.views.explorer.payload import explorer_payload

__all__ = ["DIFF_COLOURS", "PALETTE", "PINNED", "explorer_esm", "explorer_html", "explorer_page", "explorer_payload", "merge_preview_payload",
           "overlay_payload", "payload_json", "type_colour", "type_colours"]
