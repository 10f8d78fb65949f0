"""Synthetic line-figure cases shared by the figure tests."""

# Six models under one to five methods, and two references: 20 systems (the figures' synthetic case).
SYNTHETIC_MODELS = {"gpt2": ["blimp_paper", "lmeval04", "salazar", "blimp_paper_mean", "lmeval04_mean"],
                    "gpt2-medium": ["blimp_paper", "lmeval04", "salazar", "salazar_mean"],
                    "gpt2-large": ["blimp_paper", "lmeval04", "salazar"],
                    "bert-base-cased": ["pll_original", "pll_within_word_l2r"],
                    "roberta-base": ["pll_original", "pll_within_word_l2r"],
                    "distilbert-base-cased": ["pll_original", "pll_original_mean"]}
SYNTHETIC_REFERENCES = ["LSTM (paper)", "5-gram (paper)"]
