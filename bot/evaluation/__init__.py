"""Measuring a judge on labelled statements (BioRED-Verify and any JSON Lines set of the same shape)."""
