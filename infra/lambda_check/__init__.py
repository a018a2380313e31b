"""`make lambda-check`: the built bundles run as AWS Lambda runs them (issue 32).

The deployment is tested everywhere else through the working tree's venv; this check starts
each function of the packaged template (build/package/sam.json) from its own bundle, in a
fresh Python 3.11 that sees only that bundle and the standard library, with the environment
the template gives the function (references resolved to resources made on moto's server from
the template's own definitions), and invokes it with events shaped as AWS documents them.

    template.py    reads sam.json: parameters, conditions, intrinsic functions, the functions
    stand_in.py    moto's server with the template's table, queues, bucket and mail identity
    bundles.py     unpacks each zip into a read-only folder, once per zip digest
    runtime.py     the child: Lambda's Python bootstrap in miniature (stdlib only)
    functions.py   the parent: starts a function's child, invokes it within its timeout, reads its memory
    events.py      API Gateway proxy, DynamoDB stream, SQS, S3 notification and schedule events

The checks themselves are tests/lambda_check (pytest), which `make lambda-check` runs after
`make package`; tests/lambda_check/test_sabotage.py shows each one failing on a broken artifact."""
