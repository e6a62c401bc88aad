# SPDX-License-Identifier: GPL-2.0
"""smartt-lab: experiments, traffic driver, metrics and reports."""
