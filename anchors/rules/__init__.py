"""The scanner's rule families, one module each: injection, exfiltration, secrets, ssh, unicode.

Each family exposes `scan(view: FoldedText) -> list[Hit]`; spans in a `Hit` are offsets into the
original text. `anchors.scanner.scan_text` runs them all and turns hits into findings. The
literal words each rule needs are registered with `anchors.rules.needles`, which finds the ones a
text holds in one pass for all the families.
"""
