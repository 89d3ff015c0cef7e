from bgtui.cli import main

raise SystemExit(main())
