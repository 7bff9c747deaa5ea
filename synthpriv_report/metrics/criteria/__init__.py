"""The three anonymisation criteria of the EDPB's Opinion 05/2014 as attacks: singling out, linkability and
inference.
"""
