"""The pages that sum up the whole book from the results store: the scorecard, the bottom line, the deviations page."""
