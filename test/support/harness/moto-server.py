# moto's server (5.2.5) with three changes to its CloudFormation emulation that `cdk deploy` of the stack and reading its
# outputs need, each where moto differs from AWS's documented behaviour; nothing else changes. Run by moto.ts with the
# virtualenv's python.
#   1. `Ref` of an AWS::Events::EventBus is the bus's name (AWS); moto returns its model object, and every
#      AWS::Events::Rule with `EventBusName: {Ref: Bus}` then fails with "'EventBus' object has no attribute 'split'".
#   2. ExecuteChangeSet of a CREATE change set computes the stack's outputs from the new template (AWS); moto keeps
#      the outputs of the empty template the change set started from, so DescribeStacks shows none.
#   3. AWS::Lambda::Url: moto has Function URLs in its Lambda API (CreateFunctionUrlConfig) but no CloudFormation model
#      for them, and DescribeStacks then fails (HTTP 500) on every output that reads `Fn::GetAtt <url>.FunctionUrl`.
#      The model below creates the URL config through moto's own Lambda backend; FunctionUrl is the URL moto generated
#      (`https://<id>.lambda-url.<region>.on.aws`, with the trailing slash AWS gives). Nothing answers on that URL.
import sys

import moto.cloudformation.models as cloudformation_models
import moto.events.models as events_models
from moto.awslambda.models import lambda_backends
from moto.cloudformation.exceptions import UnformattedGetAttTemplateException
from moto.core.common_models import CloudFormationModel
from moto.server import main

events_models.EventBus.physical_resource_id = property(lambda self: self.name)

_execute_change_set = cloudformation_models.CloudFormationBackend.execute_change_set


def execute_change_set(self, change_set_name, stack_name=None):
    _execute_change_set(self, change_set_name, stack_name)
    for stack in self.stacks.values():
        stack._parse_template()
        stack.output_map = stack._create_output_map()


cloudformation_models.CloudFormationBackend.execute_change_set = execute_change_set


class FunctionUrl(CloudFormationModel):
    # NOTE: moto's model metaclass finds the service in the module's name.
    __module__ = "moto.awslambda.models"

    def __init__(self, config):
        self.config = config

    @staticmethod
    def cloudformation_name_type():
        return ""

    @staticmethod
    def cloudformation_type():
        return "AWS::Lambda::Url"

    @classmethod
    def has_cfn_attr(cls, attr):
        return attr in ("FunctionArn", "FunctionUrl")

    @classmethod
    def create_from_cloudformation_json(cls, resource_name, cloudformation_json, account_id, region_name, **kwargs):
        props = cloudformation_json["Properties"]
        config = {key: props[key] for key in ("AuthType", "Cors", "InvokeMode") if key in props}
        backend = lambda_backends[account_id][region_name]
        return cls(backend.create_function_url_config(props["TargetFunctionArn"], config))

    @property
    def physical_resource_id(self):
        return self.config.function.function_arn

    def get_cfn_attribute(self, attribute_name):
        if attribute_name == "FunctionUrl":
            return self.config.url if self.config.url.endswith("/") else self.config.url + "/"
        if attribute_name == "FunctionArn":
            return self.config.function.function_arn
        raise UnformattedGetAttTemplateException()

if __name__ == "__main__":
    sys.exit(main())
