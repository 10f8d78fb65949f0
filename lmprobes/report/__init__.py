"""The reproduction report: verdicts against the papers, per-model summaries, LaTeX tables, the landing page."""
