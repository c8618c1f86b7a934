"""`python -m bench.abuse`: see the package's docstring."""

import asyncio

from bench.abuse import main

asyncio.run(main())
