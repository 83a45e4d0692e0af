"""What reads every paper at once: the overview chapters 00 and 06 print (the tasks each paper reports, the scorecard
of the claims, ours against the papers across chapters, the equal-compute study, the hardware rows).

It sits above the papers (:mod:`reproducer.papers`): it reads their declarations through the registry
(:mod:`reproducer.papers.registry`) and their chapters' results from ``results/``; no paper imports it.
"""
