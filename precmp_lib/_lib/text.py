"""Characters of user text that change how the text around them is shown.

>>> 0x202E in DIRECTION_CONTROLS, ord("a") in DIRECTION_CONTROLS
(True, False)
"""

# Unicode's bidirectional controls: the embeddings and overrides (U+202A to U+202E), the
# isolates (U+2066 to U+2069) and the marks LRM, RLM and ALM. Inside a name they reorder the
# text after it, so that "\u202eA_ledom" reads as "model_A". The pages show each as U+FFFD,
# the command's messages as its escape.
DIRECTION_CONTROLS = (*range(0x202A, 0x202F), *range(0x2066, 0x206A), 0x200E, 0x200F, 0x061C)
