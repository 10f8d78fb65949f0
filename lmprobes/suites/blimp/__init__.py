"""BLiMP (Warstadt et al. 2020): minimal-pair dataset, pair scoring and accuracies."""
