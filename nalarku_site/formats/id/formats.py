# One way to write a date across the interface: "1 Agustus 2026" and
# "1 Agustus 2026 14.05" (Django's Indonesian default mixes "12 Feb. 2026"
# with "1 Agu 2026"). Dates inside evidence stay as the sources give them.
DATE_FORMAT = "j F Y"
DATETIME_FORMAT = "j F Y H.i"
SHORT_DATE_FORMAT = "j M Y"
SHORT_DATETIME_FORMAT = "j M Y H.i"
