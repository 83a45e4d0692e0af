"""The book's one plot style: a colour-blind-safe palette with distinct hues, seaborn's whitegrid, and figures narrowed
until their labels read on the page (set by :func:`reproducer.notebook.start`; :meth:`NotebookRun.save_figure
<reproducer.results_store.NotebookRun.save_figure>` applies :func:`readable_figure`).
"""
from __future__ import annotations

import warnings

#: The widest a book figure is drawn (inches) and its smallest font (points): at this width the page shows a figure
#: at three quarters of its pixels or more in a 1280-px browser window, so 10-pt text reads at 11 px or more.
FIGURE_WIDTH, SMALLEST_FONT = 8.0, 10.0
#: Seaborn's colour-blind palette reordered so the first lines get distinct hues: its orange and vermilion, which
#: readers confuse, come fourth and ninth apart (blue, orange, green, purple, grey, sky, brown, wine, vermilion, olive).
#: Its yellow (#ece133, 1.4:1 against white) and pink (#fbafe4, 1.7:1), which vanish as lines and bars on the page,
#: are replaced by Paul Tol's colour-blind-safe wine and olive (issue 69): every colour reaches :data:`MIN_CONTRAST`.
PALETTE = ["#0173b2", "#de8f05", "#029e73", "#cc78bc", "#949494", "#56b4e9", "#ca9161", "#882255", "#d55e00", "#999933"]
#: The least contrast of a palette colour against the white page (WCAG's ratio; seaborn's sky blue is 2.3:1).
MIN_CONTRAST = 2.0


def contrast(colour: str, background: str = "#ffffff") -> float:
    """WCAG 2's contrast ratio of two ``#rrggbb`` colours (1 to 21)."""
    def luminance(hex_colour):
        channels = [int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    high, low = sorted((luminance(colour), luminance(background)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def set_style() -> None:
    """The book's one plotting style: seaborn whitegrid, a colour-blind-safe palette with distinct hues
    (:data:`PALETTE`), fonts no smaller than :data:`SMALLEST_FONT`, legends outside crowded axes where the chapters
    place them."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context="notebook", style="whitegrid", palette=PALETTE)
    mpl.rcParams.update({"figure.dpi": 110, "savefig.dpi": 110, "figure.figsize": (7.0, 3.6),
                         "axes.titlesize": "medium", "axes.titleweight": "bold", "legend.frameon": False})


def readable_figure(fig) -> None:
    """Raise every text of ``fig`` below :data:`SMALLEST_FONT` points to it and narrow the figure until what is saved
    (its tight box, legends beside the axes included) is at most :data:`FIGURE_WIDTH` inches wide, its height kept: no
    figure of the book is shrunk on the page until its labels are unreadable."""
    import matplotlib.text

    width, height = fig.get_size_inches()
    for text in fig.findobj(matplotlib.text.Text):
        if text.get_text() and text.get_fontsize() < SMALLEST_FONT:
            text.set_fontsize(SMALLEST_FONT)
    fig.set_size_inches(min(width, FIGURE_WIDTH), height)
    for _ in range(3):  # what is saved is the tight box, legends beside the axes included: narrow until it fits
        if not fig.legends:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # axes that tight_layout cannot place keep their place
                fig.tight_layout()
        tight = fig.get_tightbbox(fig.canvas.get_renderer()).width
        if tight <= FIGURE_WIDTH + 0.05:
            break
        fig.set_size_inches(max(fig.get_size_inches()[0] - (tight - FIGURE_WIDTH), FIGURE_WIDTH / 2), height)
