"""Charts and the static HTML report of phasebench result files.

The package reads only JSON written by phasebench (result files, `phasebench gate --json`,
`phasebench cycles --format json`), so it runs on its own (`python3 -m phasebench_plots`)
as well as behind `phasebench chart` and `phasebench report`.
"""
