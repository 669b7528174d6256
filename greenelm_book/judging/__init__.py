"""The judging: one named test per kind of verdict, the uniform re-judgement of every stored answer, comparability as data, paired comparisons."""
